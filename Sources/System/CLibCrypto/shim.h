// OpenSSL libcrypto (Debian: libssl-dev), used only where swift-crypto has no
// primitive: Triple-DES for the PIV default management key.
#include <openssl/evp.h>
#include <openssl/err.h>
