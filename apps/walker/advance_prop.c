/* Prop: the same source compiled equation-major. */
#define HL_FIELDS_ORDER HL_FIELDS_EQUATION_MAJOR
#include "advance_fields.inc"
