#!/usr/bin/env python3
"""Verify passkey-agent's WebAuthn output with an independent relying-party
library: py_webauthn (https://github.com/duo-labs/py_webauthn).

Usage:
  verify_webauthn.py register OPTIONS.json RESPONSE.json ORIGIN
      prints {"credentialId", "publicKey", "signCount", "userVerified", "fmt"} (base64url)
  verify_webauthn.py authenticate OPTIONS.json RESPONSE.json ORIGIN PUBLIC_KEY SIGN_COUNT
      prints {"newSignCount", "userVerified"}
Exits non-zero with the library's message when verification fails.
"""
import json
import sys

from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.cose import COSEAlgorithmIdentifier


def main() -> int:
    mode = sys.argv[1]
    with open(sys.argv[2]) as f:
        options = json.load(f)
    with open(sys.argv[3]) as f:
        response = f.read()
    origin = sys.argv[4]
    try:
        if mode == "register":
            verified = verify_registration_response(
                credential=response,
                expected_challenge=base64url_to_bytes(options["challenge"]),
                expected_rp_id=options["rp"]["id"],
                expected_origin=origin,
                supported_pub_key_algs=[COSEAlgorithmIdentifier(p["alg"]) for p in options["pubKeyCredParams"]],
            )
            print(json.dumps({
                "credentialId": bytes_to_base64url(verified.credential_id),
                "publicKey": bytes_to_base64url(verified.credential_public_key),
                "signCount": verified.sign_count,
                "userVerified": verified.user_verified,
                "fmt": str(verified.fmt.value if hasattr(verified.fmt, "value") else verified.fmt),
            }))
        else:
            verified = verify_authentication_response(
                credential=response,
                expected_challenge=base64url_to_bytes(options["challenge"]),
                expected_rp_id=options["rpId"],
                expected_origin=origin,
                credential_public_key=base64url_to_bytes(sys.argv[5]),
                credential_current_sign_count=int(sys.argv[6]),
            )
            print(json.dumps({"newSignCount": verified.new_sign_count, "userVerified": verified.user_verified}))
    except Exception as error:  # the library's own verdict, for the test's message
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
