// Added to every op by opkit build.
//
// gcc >= 11's libstdc++ headers read glibc's __libc_single_threaded (new in
// glibc 2.32) when they are compiled on a glibc that has it, so every op built
// on a modern distribution needs GLIBC_2.32 and cannot load on the older
// systems TensorFlow's own wheels target (Ubuntu 16.04, CentOS 7). A hidden
// definition inside the op satisfies those references at link time instead.
// Its value, 0 ("maybe multi-threaded"), makes libstdc++ always take the
// atomic path: correct in any process, only a little slower.
extern "C" {
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;
}
