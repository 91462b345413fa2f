/* opkit's load probe, part 1: loads an op library the way the framework's
 * Python does. Usage: load_probe LIBRARY
 * TF's Python imports _pywrap_tensorflow_internal.so (torch's, _C and
 * libtorch_cpu.so) without RTLD_GLOBAL: an op library reaches the framework
 * only through its own DT_NEEDED. So this program is not linked with the
 * framework (nor with libstdc++); it dlopens libopkit_probe_report.so (beside
 * it, linked with the framework) RTLD_LOCAL, then the op library RTLD_NOW |
 * RTLD_LOCAL (ctypes.CDLL's flags: tf.load_op_library, torch.ops.load_library),
 * and prints the report's JSON: what the op library registered.
 * Exit: 0 loaded, 3 the loader refused the library, 4 the probe itself failed. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef void (*Snapshot)(void);
typedef const char* (*Report)(void);
typedef const char* (*Refused)(const char*);

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: load_probe LIBRARY\n");
    return 2;
  }
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 64);
  if (n <= 0) {
    fprintf(stderr, "load_probe: cannot find its own folder\n");
    return 4;
  }
  path[n] = '\0';
  char* slash = strrchr(path, '/');
  strcpy(slash ? slash + 1 : path, "libopkit_probe_report.so");
  void* reporter = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (reporter == NULL) {
    fprintf(stderr, "load_probe: cannot load %s: %s\n", path, dlerror());
    return 4;
  }
  Snapshot snapshot = (Snapshot)dlsym(reporter, "opkit_probe_snapshot");
  Report report = (Report)dlsym(reporter, "opkit_probe_report");
  Refused refused = (Refused)dlsym(reporter, "opkit_probe_refused");
  if (snapshot == NULL || report == NULL || refused == NULL) {
    fprintf(stderr, "load_probe: %s lacks the probe's functions\n", path);
    return 4;
  }
  snapshot();
  if (dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) == NULL) {
    printf("%s\n", refused(dlerror()));
    return 3;
  }
  printf("%s\n", report());
  return 0;
}
