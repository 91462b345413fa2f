# opkit_embed(<name> <output.cpp> <root> <dir>...)
# Generates <output.cpp>, defining opkit::embedded_files(): every file under the
# given folders (relative to <root>) as a {path, bytes} table. Regenerated when
# any of those files changes, so templates and configs ship inside the binary.
function(opkit_embed name output root)
  set(files "")
  foreach(dir ${ARGN})
    file(GLOB_RECURSE found CONFIGURE_DEPENDS RELATIVE ${root} ${root}/${dir}/*)
    list(APPEND files ${found})
  endforeach()
  list(SORT files)
  set(abs_files "")
  foreach(f ${files})
    list(APPEND abs_files ${root}/${f})
  endforeach()
  string(REPLACE ";" "|" file_arg "${files}")
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DROOT=${root} "-DFILES=${file_arg}" -DOUTPUT=${output}
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_files.cmake
    DEPENDS ${abs_files} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_files.cmake
    COMMENT "Embedding ${name}"
    VERBATIM)
endfunction()
