"""{{op_name}}: the model behind the {{name}} operator.

The default model is a joint RGB colour histogram: deterministic and without
weights, so the service runs (and `opkit test` passes) offline. To serve a real
model, fetch its weights in data/prepare_model.sh, load it in __init__ and
replace _features(), keeping the contract: one float vector of DIMENSION
elements per image, L2-normalised, because Phantoscope stores the vectors in
Milvus and searches them with METRIC_TYPE.
"""
import logging
import os

import numpy as np
from PIL import Image

from utils import load_image

# What Identity reports and Phantoscope registers. DIMENSION is declared here
# only: server.py reports it and the test checks every vector against it.
NAME = "{{name}}"
TYPE = "encoder"
INPUT = "image"
OUTPUT = "vector"
DIMENSION = 512
METRIC_TYPE = "L2"

# Levels per colour channel: the histogram has BINS**3 cells, one per element.
BINS = 8
# Images are shrunk to fit this box first: it bounds the cost, and a colour
# histogram barely changes with scale.
MAX_SIDE = 512


def model_data_dir():
    """Where data/prepare_model.sh puts the weights."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


class CustomOperator:
    def __init__(self):
        # Phantoscope's device selection: /cpu:0, or /device:GPU:0 with docker run --gpus.
        self.device = os.getenv("device_id", "/cpu:0")
        if "GPU" in self.device.upper():
            logging.warning("device_id=%s: the histogram model runs on the CPU; "
                            "a real model is placed on this device", self.device)
        # Warm up once, so a broken model fails at startup, not on the first request.
        self._features(Image.new("RGB", (8, 8)))
        logging.info("%s ready (device %s)", NAME, self.device)

    def _features(self, image):
        image.thumbnail((MAX_SIDE, MAX_SIDE))
        pixels = np.asarray(image, dtype=np.int64).reshape(-1, 3)
        levels = pixels * BINS // 256
        cells = (levels[:, 0] * BINS + levels[:, 1]) * BINS + levels[:, 2]
        histogram = np.bincount(cells, minlength=BINS**3) / len(cells)
        # The square root of a distribution has unit L2 norm, and L2 distances
        # between such vectors follow the Hellinger distance between histograms.
        return np.sqrt(histogram).astype(np.float32)

    def run(self, images, urls):
        """One vector (a list of floats) per image: images (base64) if any, else urls."""
        if images:
            loaded = [load_image(data=data) for data in images]
        else:
            loaded = [load_image(url=url) for url in urls]
        return [self._features(image).tolist() for image in loaded]

    # Phantoscope reads these as strings.
    @property
    def name(self):
        return NAME

    @property
    def type(self):
        return TYPE

    @property
    def input(self):
        return INPUT

    @property
    def output(self):
        return OUTPUT

    @property
    def dimension(self):
        return str(DIMENSION)

    @property
    def metric_type(self):
        return METRIC_TYPE
