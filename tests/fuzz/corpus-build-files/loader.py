import os
import tensorflow as tf
from tensorflow.python.platform import resource_loader

_ops = tf.load_op_library(resource_loader.get_path_to_datafile("_x_ops.so"))
_lazy = LazySO("custom_ops/image/_image_ops.so")
_joined = tf.load_op_library(os.path.join(os.path.dirname(__file__), "lib" "_y.so"))


def load():
    return tf.load_op_library(r'''_z_ops.so''')
