/* hyperlayout — the build's choices that code compiled against the headers
 * must share.  This copy, in the source tree, holds the defaults; `cmake
 * --install` installs one generated from cmake/config.h.in with the choices
 * the library was configured with, so that programs built against the
 * installed headers see them without any -D flag.  A definition on the
 * command line (what CMake gives targets in the build tree) wins. */
#ifndef HYPERLAYOUT_CONFIG_H
#define HYPERLAYOUT_CONFIG_H

/* fields.h's storage order when a translation unit does not choose one
 * (CMake option HL_FIELDS_ORDER). */
#ifndef HL_FIELDS_ORDER_DEFAULT
#define HL_FIELDS_ORDER_DEFAULT HL_FIELDS_UNKNOWN_MAJOR
#endif

#endif
