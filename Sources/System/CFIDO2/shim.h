// libfido2 (Debian: libfido2-dev 1.12). Only public headers.
#include <fido.h>
#include <fido/credman.h>
#include <fido/es256.h>
#include <fido/eddsa.h>
#include <fido/rs256.h>
