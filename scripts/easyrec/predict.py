"""Serves an EasyRec export as a serving process does, in whatever TensorFlow
runs this script (1.12 or 2.10.1): load the op libraries first, then the
SavedModel (tags: serve) into a session, and run its serving_default signature
on rows of a CSV (label,user_id,query,title: the sample pipeline's columns).

Prints one JSON object: the TF version, the libraries loaded, the predictions
(every output of the signature, per row) and, with --check-op, the op's own
outputs on the rows' texts next to an independent Python computation of them.
Exit 1 when the op disagrees with Python; a failing load raises (exit != 0).

Usage: python predict.py --export DIR --rows CSV [--library LIB]... [--assets]
                         [--check-op FUNCTION] [--separator ' ']
  --assets  loads every *.so in DIR/assets/ (the library `opkit package
            saved-model` or EasyRec's --asset_files put there), as the EAS
            processor does before it loads the model
"""
import argparse
import csv
import glob
import json
import os
import sys

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1 if hasattr(tf, 'compat') and hasattr(tf.compat, 'v1') else tf


def term_match_ratio(query, doc, separator):
  """The op's contract, computed independently: the share of query's terms in doc."""
  query_terms = [t for t in query.split(separator) if t]
  doc_terms = set(t for t in doc.split(separator) if t)
  if not query_terms:
    return 0.0
  return sum(1 for t in query_terms if t in doc_terms) / float(len(query_terms))


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument('--export', required=True)
  parser.add_argument('--rows', required=True)
  parser.add_argument('--library', action='append', default=[])
  parser.add_argument('--assets', action='store_true')
  parser.add_argument('--check-op', default='')
  parser.add_argument('--separator', default=' ')
  args = parser.parse_args()

  libraries = list(args.library)
  if args.assets:
    libraries += sorted(glob.glob(os.path.join(args.export, 'assets', '*.so')))
  modules = [tf.load_op_library(os.path.abspath(path)) for path in libraries]

  with open(args.rows) as f:
    rows = [row for row in csv.reader(f)]
  columns = {'label': [int(r[0]) for r in rows], 'user_id': [r[1] for r in rows],
             'query': [r[2] for r in rows], 'title': [r[3] for r in rows]}

  result = {'tf_version': tf.__version__, 'libraries': [os.path.basename(p) for p in libraries]}
  with v1.Session(graph=tf.Graph()) as session:
    meta = v1.saved_model.loader.load(session, ['serve'], args.export)
    signature = meta.signature_def['serving_default']
    feed = {}
    for key, info in signature.inputs.items():
      if key not in columns:
        raise SystemExit('the signature wants input %r, which the rows do not have' % key)
      dtype = tf.as_dtype(info.dtype)
      values = columns[key]
      feed[info.name] = np.array(values, dtype=object if dtype == tf.string else dtype.as_numpy_dtype)
    names = sorted(signature.outputs.keys())
    fetched = session.run([signature.outputs[name].name for name in names], feed_dict=feed)
    result['predictions'] = {name: np.asarray(value).tolist() for name, value in zip(names, fetched)}

    if args.check_op:
      function = None
      for module in modules:
        function = getattr(module, args.check_op, None) or function
      if function is None:
        raise SystemExit('no loaded library has the op function %r' % args.check_op)
      ratio = session.run(function(columns['query'], columns['title'], separator=args.separator))
      expected = [term_match_ratio(q, d, args.separator) for q, d in zip(columns['query'], columns['title'])]
      worst = float(np.max(np.abs(np.asarray(ratio) - np.asarray(expected)))) if rows else 0.0
      result['op'] = {'function': args.check_op, 'outputs': np.asarray(ratio).tolist(), 'python': expected,
                      'max_abs_diff': worst}
  print(json.dumps(result))
  if args.check_op and result['op']['max_abs_diff'] > 1e-6:
    sys.stderr.write('predict: the op %s disagrees with the Python computation by %g\n' %
                     (args.check_op, result['op']['max_abs_diff']))
    sys.exit(1)


if __name__ == '__main__':
  main()
