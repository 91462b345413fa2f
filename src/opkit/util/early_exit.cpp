#include "opkit/util/early_exit.hpp"

#include <cstdio>
#include <cstdlib>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OPKIT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define OPKIT_SANITIZED 1
#endif
#endif

namespace opkit {

void
exit_now_unless_sanitized(int code)
{
#ifndef OPKIT_SANITIZED
  std::fflush(nullptr);
  std::_Exit(code);
#else
  (void)code;
#endif
}

} // namespace opkit
