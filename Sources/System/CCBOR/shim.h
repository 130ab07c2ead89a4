// libcbor (Debian: libcbor-dev 0.8).
#include <cbor.h>
