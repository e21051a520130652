/* Par: the order-agnostic integrator compiled unknown-major. */
#define HL_FIELDS_ORDER HL_FIELDS_UNKNOWN_MAJOR
#include "advance_fields.inc"
