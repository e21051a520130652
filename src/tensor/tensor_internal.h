/* hyperlayout internal — what tensor.c lends the cache and the runner. */
#ifndef HYPERLAYOUT_TENSOR_INTERNAL_H
#define HYPERLAYOUT_TENSOR_INTERNAL_H

#include "hyperlayout/tensor.h"

/* Sets t->affine, t->origin and t->stride from t->layout (normal form) and
 * t->lo. */
void hl_tensor_find_affine(hl_tensor *t);

#endif
