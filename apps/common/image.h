/* hyperlayout applications — PNG images through libpng, written atomically. */
#ifndef APPS_COMMON_IMAGE_H
#define APPS_COMMON_IMAGE_H

#include <stdint.h>

#include "hyperlayout/base.h"

/* Writes an 8-bit image of WIDTH x HEIGHT pixels with CHANNELS = 1 (grey) or
 * 3 (RGB) to PATH.  Row y starts at PIXELS + y * ROW_STRIDE bytes (row 0 is
 * the top of the picture); a row is WIDTH * CHANNELS bytes.  The file appears
 * whole or not at all.  HL_ERR_ARG for sizes PNG cannot hold, HL_ERR_IO (errno
 * set) when the file cannot be written. */
hl_status image_write_png(const char *path, const uint8_t *pixels, int64_t width, int64_t height,
                          int channels, int64_t row_stride);

#endif
