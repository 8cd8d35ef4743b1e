// Test helper: a scratch file that no other test process can touch.
//
// ctest runs every test as its own process, several at once, so two tests
// that write the same fixed name in the temp dir race: one truncates the file
// while the other reads it. The name here carries the suite, the test and
// the process id.
#ifndef ORBITCC_SIM_TEMP_FILE_TEST_UTIL_H_
#define ORBITCC_SIM_TEMP_FILE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace orbitcc {

// Writes `content` to a file private to the running test; returns its path.
inline std::string WriteTestFile(const std::string& name,
                                 const std::string& content) {
  const ::testing::TestInfo* info =
      ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string path = ::testing::TempDir() + "/orbitcc_" +
                           info->test_suite_name() + "_" + info->name() + "_" +
                           std::to_string(getpid()) + "_" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  return path;
}

}  // namespace orbitcc

#endif  // ORBITCC_SIM_TEMP_FILE_TEST_UTIL_H_
