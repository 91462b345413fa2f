# TF's own loader, as a user's process calls it: exit 0 loaded, 3 refused
# (the tests that compare opkit check with tf.load_op_library run it).
import sys

import tensorflow as tf

try:
    tf.load_op_library(sys.argv[1])
except tf.errors.NotFoundError as refusal:
    sys.stdout.write("refused: %s\n" % refusal)
    raise SystemExit(3)
print("loaded")
