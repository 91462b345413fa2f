# Fixture: the files opkit derives an SDK's facts from (version.h,
# release_version.h, METADATA, cpp_extension.py, TorchConfig.cmake,
# version.py), read by range out of the official wheels of six TensorFlow and
# six torch releases into a shared cache, for the unit tests unit.real_wheels runs.
source "$(dirname "$0")/common.sh"
python3 "$OPKIT_SOURCE_DIR/scripts/fetch-fact-files.py" >"$work/folders" || fail "fetch-fact-files.py failed"
[ "$(wc -l <"$work/folders")" -eq 12 ] || fail "expected twelve release folders, got $(wc -l <"$work/folders")"
for f in $(cat "$work/folders"); do
  [ -s "$f/dist-info/METADATA" ] || fail "$f: no METADATA"
  case $f in
    */torch-*) [ -s "$f/facts/cpp_extension.py" ] && [ -s "$f/version.py" ] || fail "$f: no cpp_extension.py or version.py" ;;
    *) [ -s "$f/include/tensorflow/core/public/version.h" ] || fail "$f: no version.h" ;;
  esac
done
