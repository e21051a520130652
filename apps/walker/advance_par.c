/* Par: the layout-agnostic integrator compiled unknown-major. */
#define HL_FIELDS_LAYOUT HL_FIELDS_UNKNOWN_MAJOR
#include "advance_fields.inc"
