// Which libstdc++ this module runs with, and a clear ImportError when it is
// older than the headers it was compiled with (docs/robustness.md, "A
// segfault under another toolchain").
#pragma once

#include <string>
#include <vector>

namespace orbitcc {

struct LibstdcxxInfo {
  int headers_release = 0;  // _GLIBCXX_RELEASE: the GCC major of the headers
  int needed_minor = -1;    // GLIBCXX_3.4.<needed_minor> those headers ship
  std::string loaded_path;  // the libstdc++ the module's references bind to
  int loaded_minor = -1;    // its newest GLIBCXX_3.4.<minor> version node
  // Every object in the process that defines GLIBCXX_3.4 (one copy of
  // libstdc++ is the healthy case; a second one is usually a vendored copy).
  std::vector<std::string> copies;
};

// The newest GLIBCXX_3.4.<minor> a GCC major's libstdc++ defines (the .1
// release; -1 when unknown, e.g. not libstdc++).
int GlibcxxMinorOfGccRelease(int gcc_major);

LibstdcxxInfo InspectLibstdcxx();

// "" when the loaded libstdc++ is at least as new as the headers (or either
// is unknown); else the ImportError message.
std::string LibstdcxxProblem(const LibstdcxxInfo& info);

}  // namespace orbitcc
