/* hyperlayout applications — image output: PNG (libpng, errors through setjmp). */
#include "image.h"

#include <png.h>
#include <setjmp.h>

#include "atomic_file.h"

hl_status image_write_png(const char *path, const uint8_t *pixels, int64_t width, int64_t height,
                          int channels, int64_t row_stride)
{
    if (!path || !pixels)
        return HL_ERR_NULL;
    /* PNG's own limit is 2^31-1; libpng's default user limit is 10^6. */
    if (width < 1 || height < 1 || width > 1000000 || height > 1000000 ||
        (channels != 1 && channels != 3) || row_stride < width * channels)
        return HL_ERR_ARG;
    hl_atomic_file *f;
    hl_status st = hl_atomic_file_open(&f, path);
    if (st != HL_OK)
        return st;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        hl_atomic_file_abort(f);
        return HL_ERR_NOMEM;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        hl_atomic_file_abort(f);
        return HL_ERR_IO;
    }
    png_init_io(png, hl_atomic_file_stream(f));
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
                 channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int64_t y = 0; y < height; y++)
        png_write_row(png, (png_const_bytep)(pixels + y * row_stride));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return hl_atomic_file_commit(f);
}
