/* hyperlayout Ising — figures drawn by the application itself (no Python). */
#ifndef ISING_FIGURE_H
#define ISING_FIGURE_H

#include "hyperlayout/base.h"
#include "stats.h"

/* |m| against T (red points with error bars) with Yang's exact spontaneous
 * magnetisation of the 2D model (blue) and Tc (dashed), 720x440 RGB PNG,
 * written atomically.  Meant for 2D runs at h = 0.  HL_ERR_ARG for n < 1. */
hl_status ising_magnetisation_figure(const char *path, const ising_result *r, int n);

#endif
