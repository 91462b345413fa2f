# Every dependency is normalised to a dep_<name> target, whatever its origin,
# so consumers never spell a package's own target names.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)

# fmt, yaml-cpp and libelf (with its libz) are linked statically, and the
# opkit binary takes libstdc++ and libgcc statically too (CMakeLists.txt): with
# the lazily opened libraries below, opkit maps only libc and libm at start-up,
# and relocates its own symbols alone (docs/benchmarks.md, opkit's start).
find_package(fmt 9 REQUIRED)
add_library(dep_fmt INTERFACE)
target_link_libraries(dep_fmt INTERFACE fmt::fmt-header-only)

find_package(CLI11 REQUIRED)
add_library(dep_cli11 INTERFACE)
target_link_libraries(dep_cli11 INTERFACE CLI11::CLI11)

find_package(yaml-cpp REQUIRED)
find_library(YAML_CPP_STATIC_LIBRARY NAMES libyaml-cpp.a REQUIRED)
add_library(dep_yaml_cpp INTERFACE)
target_include_directories(dep_yaml_cpp INTERFACE $<TARGET_PROPERTY:yaml-cpp,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(dep_yaml_cpp INTERFACE ${YAML_CPP_STATIC_LIBRARY})

# libarchive, libcurl and libcrypto are opened on first use, not linked
# (src/opkit/util/lazy_library.hpp says why): opkit compiles against their
# headers and is told the soname of the library it was built against.
function(opkit_lazy_dependency target library include_dirs define)
  execute_process(COMMAND ${CMAKE_READELF} -d ${library} OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
  string(REGEX MATCH "Library soname: \\[([^]]+)\\]" found "${dynamic}")
  if(NOT rc EQUAL 0 OR NOT CMAKE_MATCH_1)
    message(FATAL_ERROR "${library}: cannot read its SONAME with ${CMAKE_READELF}")
  endif()
  add_library(${target} INTERFACE)
  target_include_directories(${target} INTERFACE ${include_dirs})
  target_compile_definitions(${target} INTERFACE ${define}="${CMAKE_MATCH_1}")
  target_link_libraries(${target} INTERFACE ${CMAKE_DL_LIBS})
endfunction()

find_package(LibArchive REQUIRED)
opkit_lazy_dependency(dep_archive ${LibArchive_LIBRARIES} "${LibArchive_INCLUDE_DIRS}" OPKIT_ARCHIVE_SONAME)

pkg_check_modules(LIBELF REQUIRED libelf)
find_library(LIBELF_STATIC_LIBRARY NAMES libelf.a HINTS ${LIBELF_LIBRARY_DIRS} REQUIRED)
find_library(ZLIB_STATIC_LIBRARY NAMES libz.a REQUIRED)
add_library(dep_elf INTERFACE)
target_include_directories(dep_elf INTERFACE ${LIBELF_INCLUDE_DIRS})
target_link_libraries(dep_elf INTERFACE ${LIBELF_STATIC_LIBRARY} ${ZLIB_STATIC_LIBRARY})

# Zydis decodes x86-64 code for the CPU-feature scan (src/opkit/cpu/disassembler, its only user):
# five times capstone 4's speed, and every AVX-512 encoding. Opened on first use
# (src/opkit/cpu/lazy_zydis.cpp), like the libraries below.
find_package(zydis REQUIRED CONFIG)
find_library(ZYDIS_LIBRARY NAMES Zydis REQUIRED)
opkit_lazy_dependency(dep_zydis ${ZYDIS_LIBRARY} "$<TARGET_PROPERTY:Zydis::Zydis,INTERFACE_INCLUDE_DIRECTORIES>"
                      OPKIT_ZYDIS_SONAME)

find_package(nlohmann_json 3 REQUIRED)
add_library(dep_json INTERFACE)
target_link_libraries(dep_json INTERFACE nlohmann_json::nlohmann_json)

find_path(MUSTACHE_INCLUDE_DIR kainjow/mustache.hpp REQUIRED)
add_library(dep_mustache INTERFACE)
target_include_directories(dep_mustache INTERFACE ${MUSTACHE_INCLUDE_DIR})

find_program(NINJA_PROGRAM ninja REQUIRED)

find_package(CURL 7.83 REQUIRED) # curl_easy_header
opkit_lazy_dependency(dep_curl ${CURL_LIBRARIES} "${CURL_INCLUDE_DIRS}" OPKIT_CURL_SONAME)

find_package(OpenSSL REQUIRED)
opkit_lazy_dependency(dep_openssl ${OPENSSL_CRYPTO_LIBRARY} "${OPENSSL_INCLUDE_DIR}" OPKIT_CRYPTO_SONAME)

# libxml2's HTML parser reads package index pages (util/html.cpp), opened on
# first use like the three above: only `sdk fetch` needs it.
pkg_check_modules(LIBXML2 REQUIRED libxml-2.0)
find_library(LIBXML2_LIBRARY NAMES ${LIBXML2_LIBRARIES} HINTS ${LIBXML2_LIBRARY_DIRS} REQUIRED)
opkit_lazy_dependency(dep_xml2 ${LIBXML2_LIBRARY} "${LIBXML2_INCLUDE_DIRS}" OPKIT_XML2_SONAME)

# libinih reads pip.conf (src/opkit/util/ini_file.cpp, its only user), linked
# statically: the binary needs no libinih at run time.
pkg_check_modules(INIH REQUIRED inih)
find_library(INIH_STATIC_LIBRARY NAMES libinih.a HINTS ${INIH_LIBRARY_DIRS} REQUIRED)
add_library(dep_inih INTERFACE)
target_include_directories(dep_inih INTERFACE ${INIH_INCLUDE_DIRS})
target_link_libraries(dep_inih INTERFACE ${INIH_STATIC_LIBRARY})
