/* hyperlayout — umbrella header. */
#ifndef HYPERLAYOUT_H
#define HYPERLAYOUT_H

#include "hyperlayout/base.h"
#include "hyperlayout/kindex.h"
#include "hyperlayout/neighbours.h"
#include "hyperlayout/shape.h"

#endif
