# -*- encoding:utf-8 -*-
"""{{op_name}}Layer: an EasyRec component backed by the {{op_name}} custom op.

For each row, the share of one text column's terms that another text column
holds (the {{op_name}} op, lib{{name}}.so), as a [batch, 1] float feature.
Written for EasyRec {{easyrec_release}} ({{easyrec_route}}).

Like easy_rec/python/layers/keras/custom_ops.py, it loads its own library from
easy_rec/python/ops/<dir>/, where <dir> follows EasyRec's get_ops_dir() rule,
and never touches EasyRec's own libraries.
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
  path = os.path.normpath(os.path.join(here, '..', '..', 'ops', ops_dir_name(), _LIBRARY))
  try:
    return tf.load_op_library(path)
  except Exception as ex:  # noqa: BLE001 -- EasyRec warns and carries on, as custom_ops.py does
    logging.warning('failed to load %s: %s', path, ex)
    return None


{{name}}_ops = _load()
{{^raw_input}}


def _raw_features(names):
  """The raw values of the named feature columns, from the features of the
  backbone being built.

  EasyRec {{easyrec_release}} has no raw_input block: a component gets the
  embedded feature groups only. A string column declared as an IdFeature keeps
  its raw value in the features dict that every backbone package holds, so the
  layer takes it from there, by feature name.
  """
  from easy_rec.python.layers import backbone
  packages = getattr(backbone.Package, '_Package__packages', {})
  for package in reversed(list(packages.values())):
    features = getattr(package, '_features', None) or {}
    if all(name in features for name in names):
      return [features[name] for name in names]
  raise ValueError('{{op_name}}Layer: no backbone holds the raw features %s; declare each as an '
                   'IdFeature (feature_name = the name given here)' % ', '.join(names))
{{/raw_input}}


class {{op_name}}Layer(Layer):
  """The share of the first text's terms found in the second, per row.

{{#raw_input}}  Configure it in a backbone block after a raw_input block whose feature group
  holds the two PassThroughFeature columns, query first:
    blocks { name: 'text' inputs { feature_group_name: 'text' } raw_input {} }
    blocks { name: '{{name}}' inputs { block_name: 'text' }
             keras_layer { class_name: '{{op_name}}Layer'
                           st_params { fields { key: 'separator' value { string_value: ' ' } } } } }
{{/raw_input}}{{^raw_input}}  Configure it in a backbone block with st_params naming the two raw IdFeature
  columns, query first (the block's own input, any feature group, is not used):
    blocks { name: '{{name}}' inputs { feature_group_name: 'text' }
             keras_layer { class_name: '{{op_name}}Layer' st_params {
               fields { key: 'raw_features' value { list_value {
                 values { string_value: 'query' } values { string_value: 'title' } } } }
               fields { key: 'separator' value { string_value: ' ' } } } } }
{{/raw_input}}  """

  def __init__(self, params, name='{{name}}', reuse=None, **kwargs):
    super({{op_name}}Layer, self).__init__(name=name, **kwargs)
    self.reuse = reuse
    self.separator = str(params.get_or_default('separator', ' '))
{{^raw_input}}    self.raw_features = [str(x) for x in params.get_or_default('raw_features', [])]
    if len(self.raw_features) != 2:
      raise ValueError('{{op_name}}Layer: st_params raw_features must name two features (query, doc)')
{{/raw_input}}
  def call(self, inputs, training=None, **kwargs):
    if {{name}}_ops is None:
      raise RuntimeError('%s is not loaded: build it for TF %s (opkit build)' % (_LIBRARY, tf.__version__))
{{#raw_input}}    texts = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if len(texts) != 2:
      raise ValueError('{{op_name}}Layer: expects two raw text features (query, doc), got %d' % len(texts))
{{/raw_input}}{{^raw_input}}    texts = _raw_features(self.raw_features)
{{/raw_input}}    query, doc = [tf.reshape(text, [-1]) for text in texts]
    with tf.device('/CPU:0'):
      ratio = {{name}}_ops.{{name}}(query, doc, separator=self.separator)
    return tf.reshape(ratio, [-1, 1])
