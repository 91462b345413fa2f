"""Writes data/train.csv and data/eval.csv for samples/pipeline.config:
label,user_id,query,title rows where the label follows how many of the query's
terms the title holds, so the {{op_name}} feature is what the model learns from.
Deterministic (a fixed seed); Python 2.7 and 3.x. Usage: python make_data.py [OUT_DIR] [ROWS]"""
import os
import random
import sys

WORDS = ['comedy', 'drama', 'action', 'war', 'western', 'romance', 'horror', 'crime',
         'music', 'family', 'history', 'mystery']


def rows(count, rng):
  for _ in range(count):
    query = rng.sample(WORDS, rng.randint(1, 3))
    title = rng.sample(WORDS, rng.randint(1, 4))
    share = sum(1 for term in query if term in title) / float(len(query))
    label = 1 if rng.random() < 0.1 + 0.8 * share else 0
    yield '%d,u%d,%s,%s' % (label, rng.randint(0, 19), ' '.join(query), ' '.join(title))


def main():
  out = sys.argv[1] if len(sys.argv) > 1 else 'data'
  count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
  rng = random.Random(7)
  if not os.path.isdir(out):
    os.makedirs(out)
  for name, n in (('train.csv', count), ('eval.csv', count // 4)):
    with open(os.path.join(out, name), 'w') as f:
      for row in rows(n, rng):
        f.write(row + '\n')


if __name__ == '__main__':
  main()
