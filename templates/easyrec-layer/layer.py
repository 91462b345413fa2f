# -*- encoding:utf-8 -*-
"""{{op_name}}Layer: an EasyRec component backed by the {{op_name}} custom op.

Like easy_rec/python/layers/keras/custom_ops.py, it loads its own library from
easy_rec/python/ops/<dir>/, where <dir> follows EasyRec's get_ops_dir() rule,
and never touches EasyRec's libcustom_ops.so.
"""
import logging
import os

import tensorflow as tf
from tensorflow.python.keras.layers import Layer

_LIBRARY = 'lib{{name}}.so'


def ops_dir_name(version=None):
  """The easy_rec/python/ops/ sub-folder for a TF version (EasyRec's rule)."""
  version = version or tf.__version__
  if 'PAI' in version:
    return '1.12_pai'
  if version.startswith('1.12'):
    return '1.12'
  if version.startswith('1.15'):
    return 'DeepRec' if 'IS_ON_PAI' in os.environ else '1.15'
  return '.'.join(version.split('.')[:2])


def _load():
  here = os.path.dirname(os.path.abspath(__file__))
  path = os.path.join(here, '..', '..', 'ops', ops_dir_name(), _LIBRARY)
  try:
    return tf.load_op_library(os.path.normpath(path))
  except Exception as ex:  # noqa: BLE001 -- EasyRec warns and carries on, as custom_ops.py does
    logging.warning('failed to load %s: %s', path, ex)
    return None


{{name}}_ops = _load()


class {{op_name}}Layer(Layer):
  """Applies {{op_name}} to the first raw input.

  Configure it in a backbone block after a raw_input block:
    keras_layer { class_name: '{{op_name}}Layer' }
  """

  def __init__(self, params, name='{{name}}', reuse=None, **kwargs):
    super({{op_name}}Layer, self).__init__(name=name, **kwargs)
    self.reuse = reuse

  def call(self, inputs, training=None, **kwargs):
    if {{name}}_ops is None:
      raise RuntimeError('%s is not loaded: build it for TF %s (opkit build)' % (_LIBRARY, tf.__version__))
    x = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
    with tf.device('/CPU:0'):
      return {{name}}_ops.{{name}}(x)
