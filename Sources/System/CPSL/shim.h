// libpsl: the Public Suffix List, for "the registrable domain of a host"
// (which RP IDs a trusted invoke application may use by default).
#include <libpsl.h>
