# The libFuzzer build (OPKIT_FUZZ=ON, clang++): opkit_core compiled with
# coverage instrumentation, AddressSanitizer and UndefinedBehaviorSanitizer,
# and one fuzzer per entry of targets.cmake linked against it. scripts/fuzz.sh
# configures it in build-fuzz/ and builds the target `opkit_fuzzers`; the list
# of fuzzers it writes, fuzzers.txt ("<name> <binary> <seed corpus>" lines),
# is what the script runs.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "OPKIT_FUZZ needs clang++ (cmake -DCMAKE_CXX_COMPILER=clang++); scripts/fuzz.sh sets it")
endif()
set(OPKIT_FUZZ_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                     -fno-omit-frame-pointer)
target_compile_options(opkit_core PRIVATE ${OPKIT_FUZZ_FLAGS})

include(${CMAKE_CURRENT_LIST_DIR}/targets.cmake)
add_custom_target(opkit_fuzzers)
set(listing "")
foreach(entry ${OPKIT_SOLO_FUZZ_TARGETS} ${OPKIT_CORE_FUZZ_TARGETS})
  string(REPLACE ":" ";" fields ${entry})
  list(GET fields 0 name)
  list(GET fields 1 short)
  list(GET fields 2 source)
  list(GET fields 3 corpus)
  add_executable(opkit_libfuzzer_${short} ${CMAKE_CURRENT_LIST_DIR}/${source})
  target_compile_options(opkit_libfuzzer_${short} PRIVATE ${OPKIT_FUZZ_FLAGS})
  target_link_options(opkit_libfuzzer_${short} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(opkit_libfuzzer_${short} PRIVATE opkit_core)
  add_dependencies(opkit_fuzzers opkit_libfuzzer_${short})
  string(APPEND listing "${name} $<TARGET_FILE:opkit_libfuzzer_${short}> ${CMAKE_CURRENT_LIST_DIR}/${corpus}\n")
endforeach()
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/fuzzers.txt CONTENT "${listing}")
