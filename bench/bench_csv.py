"""What the benchmark scripts share: their CSV written whole or not at all."""
import csv
import os


def write_csv_atomic(path, header, rows):
    """HEADER and ROWS as CSV to PATH.tmp, renamed over PATH when complete."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
