// pcsc-lite (Debian: libpcsclite-dev). pkg-config adds -I/usr/include/PCSC.
#include <winscard.h>
#include <wintypes.h>
#include <pcsclite.h>
#include <reader.h>
