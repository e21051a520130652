/* hyperlayout — umbrella header. */
#ifndef HYPERLAYOUT_H
#define HYPERLAYOUT_H

#include "hyperlayout/atomic.h"
#include "hyperlayout/base.h"
#include "hyperlayout/cuda.h"
#include "hyperlayout/dist.h"
#include "hyperlayout/fields.h"
#include "hyperlayout/kindex.h"
#include "hyperlayout/layout.h"
#include "hyperlayout/neighbours.h"
#include "hyperlayout/plan.h"
#include "hyperlayout/problem.h"
#include "hyperlayout/npy.h"
#include "hyperlayout/h5.h"
#include "hyperlayout/ops.h"
#include "hyperlayout/version.h"
#include "hyperlayout/npz.h"
#include "hyperlayout/shape.h"
#include "hyperlayout/tensor.h"
#include "hyperlayout/wisdom.h"

#endif
