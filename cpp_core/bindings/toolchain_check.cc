#include "bindings/toolchain_check.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

namespace orbitcc {
namespace {

// The newest GLIBCXX_3.4.<minor> version node an ELF object defines, read
// from its in-memory dynamic section (DT_VERDEF); -1 when it defines none.
int NewestGlibcxxMinor(const dl_phdr_info* info) {
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
      dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr +
                                               info->dlpi_phdr[i].p_vaddr);
    }
  }
  if (dyn == nullptr) return -1;
  // glibc relocates some d_ptr entries in place and not others (and not at
  // all on some targets): an address below the load base is unrelocated.
  auto address = [info](ElfW(Addr) p) -> const char* {
    return reinterpret_cast<const char*>(
        p < info->dlpi_addr ? p + info->dlpi_addr : p);
  };
  const char* strtab = nullptr;
  const char* verdef = nullptr;
  size_t verdefnum = 0;
  for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_STRTAB) strtab = address(d->d_un.d_ptr);
    if (d->d_tag == DT_VERDEF) verdef = address(d->d_un.d_ptr);
    if (d->d_tag == DT_VERDEFNUM) verdefnum = d->d_un.d_val;
  }
  if (strtab == nullptr || verdef == nullptr) return -1;
  int newest = -1;
  const char* p = verdef;
  for (size_t n = 0; n < verdefnum && n < 4096; ++n) {
    const auto* vd = reinterpret_cast<const ElfW(Verdef)*>(p);
    if (vd->vd_cnt > 0) {
      const auto* aux = reinterpret_cast<const ElfW(Verdaux)*>(p + vd->vd_aux);
      const char* name = strtab + aux->vda_name;
      if (std::strcmp(name, "GLIBCXX_3.4") == 0) {
        if (newest < 0) newest = 0;
      } else if (std::strncmp(name, "GLIBCXX_3.4.", 12) == 0) {
        const int minor = std::atoi(name + 12);
        if (minor > newest) newest = minor;
      }
    }
    if (vd->vd_next == 0) break;
    p += vd->vd_next;
  }
  return newest;
}

struct Search {
  std::string bound;  // the file std::terminate comes from
  LibstdcxxInfo* out;
};

int Visit(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  const int minor = NewestGlibcxxMinor(info);
  if (minor < 0) return 0;
  const std::string name = info->dlpi_name ? info->dlpi_name : "";
  search->out->copies.push_back(name.empty() ? "(main program)" : name);
  if (name == search->bound) search->out->loaded_minor = minor;
  return 0;
}

}  // namespace

int GlibcxxMinorOfGccRelease(int gcc_major) {
  // libstdc++'s ABI history (gcc.gnu.org/onlinedocs/libstdc++/manual/
  // abi.html): GCC 7.1 -> 3.4.23, 8.1 -> .25, 9.1 -> .26, 10.1 -> .28,
  // 11.1 -> .29, 12.1 -> .30, 13.1 -> .31, 14.1 -> .33. A later minor
  // release may add one more (13.2: .32); the .1 value is the safe floor.
  switch (gcc_major) {
    case 7:
      return 23;
    case 8:
      return 25;
    case 9:
      return 26;
    case 10:
      return 28;
    case 11:
      return 29;
    case 12:
      return 30;
    case 13:
      return 31;
    case 14:
      return 33;
    default:
      return gcc_major > 14 ? 33 : -1;
  }
}

LibstdcxxInfo InspectLibstdcxx() {
  LibstdcxxInfo info;
#ifdef _GLIBCXX_RELEASE
  info.headers_release = _GLIBCXX_RELEASE;
  info.needed_minor = GlibcxxMinorOfGccRelease(_GLIBCXX_RELEASE);
#endif
  Dl_info where{};
  // A function every libstdc++ defines: its address is the definition the
  // module's references bind to.
  void (*probe)() = &std::terminate;
  if (dladdr(reinterpret_cast<void*>(probe), &where) != 0 &&
      where.dli_fname != nullptr) {
    info.loaded_path = where.dli_fname;
  }
  Search search{info.loaded_path, &info};
  dl_iterate_phdr(&Visit, &search);
  return info;
}

std::string LibstdcxxProblem(const LibstdcxxInfo& info) {
  if (info.needed_minor < 0 || info.loaded_minor < 0) return "";
  if (info.loaded_minor >= info.needed_minor) return "";
  std::string copies;
  for (const std::string& c : info.copies) copies += "\n  " + c;
  return "orbitcc._core was compiled with the libstdc++ headers of GCC " +
         std::to_string(info.headers_release) + " (GLIBCXX_3.4." +
         std::to_string(info.needed_minor) +
         ") but runs with an older libstdc++, " + info.loaded_path +
         " (newest GLIBCXX_3.4." + std::to_string(info.loaded_minor) +
         "), loaded into this process before orbitcc (by another module, "
         "LD_LIBRARY_PATH or a vendored copy). Code inlined from newer "
         "headers can crash inside the older library. Start Python with "
         "LD_PRELOAD set to the libstdc++ of the compiler that built orbitcc "
         "(`g++ -print-file-name=libstdc++.so.6`), or rebuild orbitcc with "
         "the toolchain whose libstdc++ is loaded. libstdc++ copies in this "
         "process:" +
         copies;
}

}  // namespace orbitcc
