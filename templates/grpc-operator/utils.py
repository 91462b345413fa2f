"""Input helpers for operators. Phantoscope sends each image either inline, as
base64 (bare or a data URL), or as a URL for the operator to fetch."""
import base64
import binascii
import io
import os
import urllib.parse
import urllib.request

from PIL import Image

# Where save_tmp_file writes; mount it (docker run -v $(pwd)/tmp:/app/tmp) to see inputs.
LOCAL_TMP_PATH = os.getenv("UPLOAD_FOLDER", "/tmp/")
# Bounds on a fetched URL, so one request cannot hang a worker or exhaust memory.
DOWNLOAD_TIMEOUT_S = 10
MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024


class BadInput(ValueError):
    """An input that is not a readable image; the server answers INVALID_ARGUMENT."""


def decode_data(data):
    """The bytes of a base64 string, bare or a data URL (data:image/png;base64,...)."""
    if data.startswith("data:"):
        header, comma, data = data.partition(",")
        if not comma or not header.endswith(";base64"):
            raise BadInput("a data URL must be data:<type>;base64,<data>")
    try:
        # Whitespace is dropped first: base64 tools wrap lines at 76 characters.
        return base64.b64decode("".join(data.split()), validate=True)
    except (binascii.Error, ValueError) as e:
        raise BadInput(f"invalid base64 image data: {e}") from None


def fetch_url(url):
    """The bytes at an http(s) URL. Other schemes (file:, ftp:) are refused: they
    would let any caller read the server's own files."""
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise BadInput(f"{url}: only http and https URLs are fetched")
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response:
            body = response.read(MAX_DOWNLOAD_BYTES + 1)
    except (OSError, ValueError) as e:  # URLError, HTTPError, timeouts, bad hosts
        raise BadInput(f"{url}: {e}") from None
    if len(body) > MAX_DOWNLOAD_BYTES:
        raise BadInput(f"{url}: larger than {MAX_DOWNLOAD_BYTES} bytes")
    return body


def read_input(data=None, url=None):
    """The raw bytes of one input: base64 data if given, else the URL's content."""
    return decode_data(data) if data is not None else fetch_url(url)


def open_image(raw):
    """An RGB Pillow image from encoded bytes (PNG, JPEG, ...)."""
    try:
        image = Image.open(io.BytesIO(raw))
        image.load()
    except (OSError, Image.DecompressionBombError) as e:
        raise BadInput(f"not an image Pillow can read: {e}") from None
    return image.convert("RGB")


def load_image(data=None, url=None):
    """An RGB Pillow image from base64 data or a URL."""
    return open_image(read_input(data, url))


def save_tmp_file(name, file_data=None, url=None):
    """Writes one input to UPLOAD_FOLDER/<name>.<format> and returns the path, for
    models that read files (e.g. keras.preprocessing.image.load_img)."""
    raw = read_input(file_data, url)
    try:
        extension = (Image.open(io.BytesIO(raw)).format or "img").lower()
    except OSError as e:
        raise BadInput(f"not an image Pillow can read: {e}") from None
    path = os.path.join(LOCAL_TMP_PATH, f"{name}.{extension}")
    with open(path, "wb") as f:
        f.write(raw)
    return path
