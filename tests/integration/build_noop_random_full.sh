# The random-edit no-op test (build_noop_random.sh) over 300 rounds: the full tier's.
OPKIT_NOOP_ROUNDS=${OPKIT_NOOP_ROUNDS:-300} source "$(dirname "$0")/build_noop_random.sh"
