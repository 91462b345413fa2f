# A second build of opkit and its unit tests with AddressSanitizer and
# UndefinedBehaviorSanitizer, every report fatal, for the tests
# `unit.sanitized` and `integration.sanitized_flow`. Same sources, compiled at
# -O0 without debug info: the cheapest to compile on the CI's two cores, and
# the sanitizers still name each report's function and source line.
set(OPKIT_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)

opkit_add_core(opkit_core_sanitized)
target_sources(opkit_core_sanitized PRIVATE ${OPKIT_BUILD_INFO_SOURCE}) # cmake/OpkitBuildInfo.cmake
add_dependencies(opkit_core_sanitized opkit_build_info)
target_compile_options(opkit_core_sanitized PUBLIC ${OPKIT_SANITIZE_FLAGS} -O0 -g0)
target_link_options(opkit_core_sanitized PUBLIC ${OPKIT_SANITIZE_FLAGS})

add_executable(opkit_sanitized src/main.cpp)
target_link_libraries(opkit_sanitized PRIVATE opkit_core_sanitized opkit_warnings)
