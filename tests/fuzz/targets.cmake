# opkit's libFuzzer targets, one entry each: <name>:<short>:<target source>:<seed corpus>.
# CTest replays every corpus (fuzz.<name>.replay); scripts/fuzz.sh fuzzes them all.

# Readers that need only a few sources: tests/fuzz/CMakeLists.txt also builds
# them with clang++ directly for the short fuzz.<name>.run tests.
set(OPKIT_SOLO_FUZZ_TARGETS
  elf_file:elf:fuzz_elf_file.cpp:corpus
  symbol_index:index:fuzz_symbol_index.cpp:corpus-index
  saved_model:saved_model:fuzz_saved_model.cpp:corpus-saved-model)

# Readers that need most of opkit_core: fuzzed only in scripts/fuzz.sh's build.
set(OPKIT_CORE_FUZZ_TARGETS
  project_yaml:project_yaml:fuzz_project_yaml.cpp:corpus-project-yaml
  index_page:index_page:fuzz_index_page.cpp:corpus-index-page
  package_verify:package_verify:fuzz_package_verify.cpp:corpus-package-verify
  wheel_import:wheel_import:fuzz_wheel_import.cpp:corpus-wheel-import
  cpu_scan:cpu_scan:fuzz_cpu_scan.cpp:corpus
  build_files:build_files:fuzz_build_files.cpp:corpus-build-files)
