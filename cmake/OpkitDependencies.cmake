# Every dependency is normalised to a dep_<name> target, whatever its origin,
# so consumers never spell a package's own target names.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)

find_package(fmt 9 REQUIRED)
add_library(dep_fmt INTERFACE)
target_link_libraries(dep_fmt INTERFACE fmt::fmt)

find_package(CLI11 REQUIRED)
add_library(dep_cli11 INTERFACE)
target_link_libraries(dep_cli11 INTERFACE CLI11::CLI11)

find_package(yaml-cpp REQUIRED)
add_library(dep_yaml_cpp INTERFACE)
target_link_libraries(dep_yaml_cpp INTERFACE yaml-cpp)

find_package(LibArchive REQUIRED)
add_library(dep_archive INTERFACE)
target_link_libraries(dep_archive INTERFACE LibArchive::LibArchive)

pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
add_library(dep_elf INTERFACE)
target_link_libraries(dep_elf INTERFACE PkgConfig::LIBELF)

find_package(nlohmann_json 3 REQUIRED)
add_library(dep_json INTERFACE)
target_link_libraries(dep_json INTERFACE nlohmann_json::nlohmann_json)

find_path(MUSTACHE_INCLUDE_DIR kainjow/mustache.hpp REQUIRED)
add_library(dep_mustache INTERFACE)
target_include_directories(dep_mustache INTERFACE ${MUSTACHE_INCLUDE_DIR})

find_program(NINJA_PROGRAM ninja REQUIRED)

find_package(CURL REQUIRED)
add_library(dep_curl INTERFACE)
target_link_libraries(dep_curl INTERFACE CURL::libcurl)

find_package(OpenSSL REQUIRED)
add_library(dep_openssl INTERFACE)
target_link_libraries(dep_openssl INTERFACE OpenSSL::Crypto)
