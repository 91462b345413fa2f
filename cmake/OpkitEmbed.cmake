# opkit_embed(<name> <output.cpp> <root> <dir>... [GENERATED <generated-root> <file>...])
# Generates <output.cpp>, defining opkit::embedded_files(): every file under the
# given folders (relative to <root>) as a {path, bytes} table, plus the files
# listed after GENERATED (relative to <generated-root>, made by the build).
# Regenerated when any of those files changes, so templates and configs ship
# inside the binary.
function(opkit_embed name output root)
  cmake_parse_arguments(ARG "" "" "GENERATED" ${ARGN})
  set(files "")
  foreach(dir ${ARG_UNPARSED_ARGUMENTS})
    file(GLOB_RECURSE found CONFIGURE_DEPENDS RELATIVE ${root} ${root}/${dir}/*)
    list(APPEND files ${found})
  endforeach()
  list(SORT files)
  set(abs_files "")
  foreach(f ${files})
    list(APPEND abs_files ${root}/${f})
  endforeach()
  set(generated "")
  set(generated_root "")
  if(ARG_GENERATED)
    list(POP_FRONT ARG_GENERATED generated_root)
    set(generated ${ARG_GENERATED})
    foreach(f ${generated})
      list(APPEND abs_files ${generated_root}/${f})
    endforeach()
  endif()
  string(REPLACE ";" "|" file_arg "${files}")
  string(REPLACE ";" "|" generated_arg "${generated}")
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DROOT=${root} "-DFILES=${file_arg}"
            -DGENERATED_ROOT=${generated_root} "-DGENERATED_FILES=${generated_arg}" -DOUTPUT=${output}
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_files.cmake
    DEPENDS ${abs_files} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_files.cmake
    COMMENT "Embedding ${name}"
    VERBATIM)
endfunction()
