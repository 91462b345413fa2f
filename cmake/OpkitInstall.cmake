# `cmake --install build --prefix P` and `cpack -G DEB`: the binary, its man
# page and shell completions (made at build time by running the built opkit:
# `opkit help --man`, `opkit completion SHELL`), the README with docs/, and the
# copyright file (packaging/copyright, Debian's machine-readable format).
include(GNUInstallDirs)

set(OPKIT_DOCS_DIR ${CMAKE_CURRENT_BINARY_DIR}/generated-docs)
set(OPKIT_GENERATED_DOCS "")
# opkit_generate(<file> <opkit args>...): <file> is opkit's stdout, written whole or not at all.
function(opkit_generate file)
  string(REPLACE ";" " " words "${ARGN}")
  add_custom_command(
    OUTPUT ${OPKIT_DOCS_DIR}/${file}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${OPKIT_DOCS_DIR}
    COMMAND sh -c "\"$0\" \"$@\" > \"${OPKIT_DOCS_DIR}/${file}.tmp\" && mv \"${OPKIT_DOCS_DIR}/${file}.tmp\" \"${OPKIT_DOCS_DIR}/${file}\""
            $<TARGET_FILE:opkit> ${ARGN}
    DEPENDS opkit
    COMMENT "Generating ${file} (opkit ${words})"
    VERBATIM)
  set(OPKIT_GENERATED_DOCS ${OPKIT_GENERATED_DOCS} ${OPKIT_DOCS_DIR}/${file} PARENT_SCOPE)
endfunction()
opkit_generate(opkit.1 help --man)
opkit_generate(opkit.bash completion bash)
opkit_generate(_opkit completion zsh)
opkit_generate(opkit.fish completion fish)
add_custom_target(opkit_docs ALL DEPENDS ${OPKIT_GENERATED_DOCS})

install(TARGETS opkit RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${OPKIT_DOCS_DIR}/opkit.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${OPKIT_DOCS_DIR}/opkit.bash RENAME opkit DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${OPKIT_DOCS_DIR}/_opkit DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${OPKIT_DOCS_DIR}/opkit.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
install(FILES README.md ARCHITECTURE.md packaging/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The reference the README links to, beside it as in the source tree (not the
# design notes of docs/design/: working notes for opkit's developers).
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md" PATTERN "design" EXCLUDE)

# --- the .deb: `cpack -G DEB --config build/CPackConfig.cmake`
# dpkg-shlibdeps finds the linked libraries' packages; the ones opkit opens on
# first use (util/lazy_library) are not linked, so their packages are read
# from dpkg's database for the very files opkit was built against.
set(OPKIT_LAZY_PACKAGES "")
find_program(DPKG_QUERY dpkg-query)
if(DPKG_QUERY)
  foreach(library ${LibArchive_LIBRARIES} ${ZYDIS_LIBRARY} ${CURL_LIBRARIES} ${OPENSSL_CRYPTO_LIBRARY} ${LIBXML2_LIBRARY})
    file(REAL_PATH ${library} real)
    execute_process(COMMAND ${DPKG_QUERY} -S ${real} OUTPUT_VARIABLE owner RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND owner MATCHES "^([^:,]+)")
      list(APPEND OPKIT_LAZY_PACKAGES ${CMAKE_MATCH_1})
    endif()
  endforeach()
endif()
list(APPEND OPKIT_LAZY_PACKAGES ninja-build)
string(REPLACE ";" ", " OPKIT_DEB_DEPENDS "${OPKIT_LAZY_PACKAGES}")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME opkit)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "opkit maintainers <opkit-maintainers@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "build, check and ship custom TensorFlow ops for every framework version")
# The .deb's description: the summary above, then this.
set(CPACK_PACKAGE_DESCRIPTION "opkit imports TensorFlow SDKs from the official wheels, scaffolds op projects,
builds each op for every TensorFlow version it targets, proves statically that
each library loads into its target runtime, tests it in the real framework and
packages it for EasyRec, TF Serving, SavedModel assets and pip.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${OPKIT_DEB_DEPENDS}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++, ccache, python3-venv")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
include(CPack)
