# `opkit --version --verbose`: the commit (asked of git on every build by
# cmake/build_info.cmake), the compiler, the build type and the versions of
# the libraries opkit is built against, as their packages' CMake and
# pkg-config files report them (the versions of their headers).
set(OPKIT_BUILD_INFO_LIBRARIES "")
foreach(pair "CLI11=CLI11_VERSION" "yaml-cpp=yaml-cpp_VERSION" "fmt=fmt_VERSION"
             "nlohmann-json=nlohmann_json_VERSION" "libelf=LIBELF_VERSION" "libarchive=LibArchive_VERSION"
             "libcurl=CURL_VERSION_STRING" "OpenSSL=OPENSSL_VERSION" "libxml2=LIBXML2_VERSION" "libinih=INIH_VERSION")
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 name)
  list(GET pair 1 variable)
  if(DEFINED ${variable} AND NOT "${${variable}}" STREQUAL "")
    string(APPEND OPKIT_BUILD_INFO_LIBRARIES "{\"${name}\", \"${${variable}}\"}, ")
  endif()
endforeach()
set(OPKIT_BUILD_INFO_SOURCE ${CMAKE_CURRENT_BINARY_DIR}/build_info.cpp)
add_custom_target(opkit_build_info
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUT=${OPKIT_BUILD_INFO_SOURCE}
          "-DCOMPILER=${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}" -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
          "-DLIBRARIES=${OPKIT_BUILD_INFO_LIBRARIES}" -P ${PROJECT_SOURCE_DIR}/cmake/build_info.cmake
  BYPRODUCTS ${OPKIT_BUILD_INFO_SOURCE}
  COMMENT "Recording the commit for opkit --version --verbose"
  VERBATIM)
target_sources(opkit_core PRIVATE ${OPKIT_BUILD_INFO_SOURCE})
add_dependencies(opkit_core opkit_build_info)
