"""Signing in to Cognito user pools on moto as Cognito does it: the app client's auth flows,
SRP, token revocation, and which attributes a person may change.

moto 5.2 gets the shape of these calls right but not what makes them safe:

- InitiateAuth takes any flow from any app client. Cognito refuses a flow the client's
  ExplicitAuthFlows do not allow, with InvalidParameterException "<FLOW> flow not enabled for
  this client"; a client created without the list allows SRP, custom and refresh-token auth
  (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_CreateUserPoolClient.html,
  ExplicitAuthFlows).
- USER_SRP_AUTH answers a random SRP_B and SALT, and PASSWORD_VERIFIER accepts any signature:
  a wrong password signs in. Here the server side of Cognito's SRP runs as Cognito's own clients
  (amazon-cognito-identity-js' AuthenticationHelper, the AWS SDKs' SRP helpers) expect it: SRP-6a
  over the 3072-bit group of RFC 5054 with g = 2 and k = H(N | g), the password verifier
  x = H(salt | H(poolName | userIdForSrp | ":" | password)), u = H(A | B), the session key
  S = (A * v^u)^b, its 16-byte HKDF-SHA256 ("Caldera Derived Key") keyed by u, and the claim
  signature HMAC-SHA256(key, poolName | userIdForSrp | SECRET_BLOCK | TIMESTAMP), where every
  number is hashed as Cognito's clients pad it (even length, "00" before a high bit). A wrong
  signature is NotAuthorizedException "Incorrect username or password."
  (https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-authentication-flow-methods.html#Built-in-authentication-flow-and-challenges).
  The salt stays the person's until their password changes; a secret block is used once.
- A NEW_PASSWORD_REQUIRED challenge carries no `userAttributes` and `requiredAttributes`, which
  Cognito sends (JSON in strings) and its clients parse; MFA_SETUP's MFAS_CAN_SETUP after SRP is
  a list where every ChallengeParameters value is a string
  (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_RespondToAuthChallenge.html).
- RevokeToken does not exist. Here it revokes the refresh token (REFRESH_TOKEN_AUTH with it is
  then NotAuthorizedException "Refresh Token has been revoked", moto's own refusal) and the
  access tokens issued from it (their `origin_jti`), so user pool APIs refuse them; a client
  with EnableTokenRevocation false is UnsupportedOperationException, a token the client did not
  issue UnsupportedTokenTypeException (the API reference names these errors, not their wording)
  (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_RevokeToken.html,
  https://docs.aws.amazon.com/cognito/latest/developerguide/token-revocation.html). As on
  Cognito, an ID token stays a valid JWT until it expires.
- UpdateUserAttributes lets a person write any attribute. Cognito refuses one the app client's
  WriteAttributes leave out: NotAuthorizedException "A client attempted to write unauthorized
  attribute" (https://docs.aws.amazon.com/cognito/latest/developerguide/user-pool-settings-attributes.html#user-pool-settings-attribute-permissions-and-scopes).
- A changed email keeps `email_verified` as it was. Cognito marks a new address unverified
  unless the same administrator request sets `email_verified` true, and in a pool whose
  UserAttributeUpdateSettings name `email` (AttributesRequireVerificationBeforeUpdate, CDK's
  `keepOriginal`) it keeps the original address until the new one is verified
  (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_AdminUpdateUserAttributes.html,
  https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_UserAttributeUpdateSettingsType.html).
"""

import base64
import hashlib
import hmac
import json
import secrets
import threading

from moto.cognitoidp.exceptions import InvalidParameterException, NotAuthorizedError
from moto.cognitoidp.models import CognitoIdpBackend, RegionAgnosticBackend
from moto.cognitoidp.responses import CognitoIdpResponse
from moto.core.exceptions import JsonRESTError

# RFC 5054's 3072-bit group, the one Cognito's SRP uses.
N = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
    "15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7"
    "ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C"
    "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF",
    16,
)
G = 2
INFO = b"Caldera Derived Key\x01"
WRONG_PASSWORD = "Incorrect username or password."

# The flows each InitiateAuth AuthFlow needs among a client's ExplicitAuthFlows (old names too).
FLOW_GRANTS = {
    "USER_SRP_AUTH": {"ALLOW_USER_SRP_AUTH"},
    "USER_PASSWORD_AUTH": {"ALLOW_USER_PASSWORD_AUTH", "USER_PASSWORD_AUTH"},
    "REFRESH_TOKEN_AUTH": {"ALLOW_REFRESH_TOKEN_AUTH"},
    "REFRESH_TOKEN": {"ALLOW_REFRESH_TOKEN_AUTH"},
    "CUSTOM_AUTH": {"ALLOW_CUSTOM_AUTH", "CUSTOM_AUTH_FLOW_ONLY"},
}
DEFAULT_FLOWS = ["ALLOW_USER_SRP_AUTH", "ALLOW_CUSTOM_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]

_lock = threading.Lock()
_salts: dict[tuple[str, str, str], str] = {}  # (pool id, user id, password) -> the person's salt
_pending: dict[str, dict] = {}  # SECRET_BLOCK -> one SRP sign-in between its two calls


def pad_hex(n: int) -> str:
    """A number as Cognito's SRP clients hash it: even-length hex, "00" before a set high bit."""
    h = format(n, "x")
    if len(h) % 2:
        h = "0" + h
    return "00" + h if h[0] in "89abcdef" else h


def _hex_hash(hex_text: str) -> str:
    return hashlib.sha256(bytes.fromhex(hex_text)).hexdigest()


K = int(_hex_hash(pad_hex(N) + pad_hex(G)), 16)


def verifier(pool_name: str, user_id: str, password: str, salt_hex: str) -> int:
    """v = g^x, x = H(salt | H(poolName | userId | ":" | password))."""
    inner = hashlib.sha256(f"{pool_name}{user_id}:{password}".encode()).hexdigest()
    x = int(_hex_hash(pad_hex(int(salt_hex, 16)) + inner), 16)
    return pow(G, x, N)


def password_key(a_value: int, b_value: int, b_secret: int, v: int) -> bytes:
    """The 16-byte key both sides derive: HKDF-SHA256 of S = (A * v^u)^b, salted with u."""
    u = int(_hex_hash(pad_hex(a_value) + pad_hex(b_value)), 16)
    s = pow(a_value * pow(v, u, N), b_secret, N)
    prk = hmac.new(bytes.fromhex(pad_hex(u)), bytes.fromhex(pad_hex(s)), hashlib.sha256).digest()
    return hmac.new(prk, INFO, hashlib.sha256).digest()[:16]


def claim_signature(key: bytes, pool_name: str, user_id: str, secret_block: str, timestamp: str) -> str:
    message = pool_name.encode() + user_id.encode() + base64.b64decode(secret_block) + timestamp.encode()
    return base64.b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode()


def _pool_of_client(backend: CognitoIdpBackend, client_id: str):
    return next((p for p in backend.user_pools.values() if client_id in p.clients), None)


def _check_flow(backend: CognitoIdpBackend, client_id: str, auth_flow: str) -> None:
    pool = _pool_of_client(backend, client_id)
    if pool is None or auth_flow not in FLOW_GRANTS:
        return  # moto's own checks answer an unknown client or flow
    allowed = pool.clients[client_id].extended_config.get("ExplicitAuthFlows") or DEFAULT_FLOWS
    if not FLOW_GRANTS[auth_flow] & set(allowed):
        raise InvalidParameterException(f"{auth_flow} flow not enabled for this client")


def _salt(pool, user) -> str:
    key = (pool.id, user.id, user.password or "")
    with _lock:
        if key not in _salts:
            _salts[key] = secrets.token_hex(16)
        return _salts[key]


def _new_password_parameters(pool, username: str, answer: dict) -> dict:
    """NEW_PASSWORD_REQUIRED as Cognito words it: the person's attributes and the required ones."""
    if answer.get("ChallengeName") != "NEW_PASSWORD_REQUIRED":
        return answer
    user = pool._get_user(username)
    if user is None:
        return answer
    shown = {a["Name"]: a["Value"] for a in user.attributes if a["Name"] != "sub"}
    params = {
        **(answer.get("ChallengeParameters") or {}),
        "USER_ID_FOR_SRP": user.username,
        "userAttributes": json.dumps(shown),
        "requiredAttributes": "[]",
    }
    return {**answer, "ChallengeParameters": params}


def _strings(answer: dict) -> dict:
    """ChallengeParameters values are strings on Cognito; moto answers MFAS_CAN_SETUP as a list."""
    params = answer.get("ChallengeParameters")
    if not params:
        return answer
    fixed = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
    return {**answer, "ChallengeParameters": fixed}


def _initiate(original):
    def initiate_auth(self, client_id, auth_flow, auth_parameters):
        _check_flow(self, client_id, auth_flow)
        answer = original(self, client_id, auth_flow, auth_parameters)
        pool = _pool_of_client(self, client_id)
        if pool is None:
            return answer
        if auth_flow == "USER_SRP_AUTH":
            return _srp_challenge(pool, answer, (auth_parameters or {}).get("SRP_A", ""))
        return _strings(_new_password_parameters(pool, (auth_parameters or {}).get("USERNAME", ""), answer))

    return initiate_auth


def _srp_challenge(pool, answer: dict, srp_a: str) -> dict:
    """PASSWORD_VERIFIER with a real B and the person's salt, remembered under a new secret block."""
    params = answer["ChallengeParameters"]
    user = pool._get_user(params["USERNAME"])
    try:
        a_value = int(srp_a, 16)
    except ValueError:
        raise InvalidParameterException("SRP_A is not a hexadecimal number") from None
    if a_value % N == 0:
        raise NotAuthorizedError(WRONG_PASSWORD)
    salt = _salt(pool, user)
    v = verifier(pool.id.split("_", 1)[1], user.username, user.password or "", salt)
    b_secret = secrets.randbits(1024)
    b_value = (K * v + pow(G, b_secret, N)) % N
    secret_block = base64.b64encode(secrets.token_bytes(64)).decode()
    with _lock:
        _pending[secret_block] = {
            "session": answer["Session"],
            "pool": pool.id,
            "user": user.username,
            "a": a_value,
            "b": b_value,
            "b_secret": b_secret,
            "v": v,
        }
    return {
        **answer,
        "ChallengeParameters": {
            **params,
            "SALT": salt,
            "SRP_B": format(b_value, "x"),
            "USER_ID_FOR_SRP": user.username,
            "SECRET_BLOCK": secret_block,
        },
    }


def _respond(original):
    def respond_to_auth_challenge(self, session, client_id, challenge_name, challenge_responses):
        responses = dict(challenge_responses or {})
        pool = _pool_of_client(self, client_id)
        if challenge_name == "PASSWORD_VERIFIER":
            block = responses.get("PASSWORD_CLAIM_SECRET_BLOCK", "")
            with _lock:
                pending = _pending.pop(block, None)
            if pending is None or pool is None or pending["pool"] != pool.id:
                raise NotAuthorizedError("Invalid session for the user.")
            expected = claim_signature(
                password_key(pending["a"], pending["b"], pending["b_secret"], pending["v"]),
                pool.id.split("_", 1)[1],
                pending["user"],
                block,
                responses.get("TIMESTAMP", ""),
            )
            given = responses.get("PASSWORD_CLAIM_SIGNATURE", "")
            if responses.get("USERNAME") != pending["user"] or not hmac.compare_digest(expected, given):
                self.sessions.pop(pending["session"], None)
                raise NotAuthorizedError(WRONG_PASSWORD)
            # moto keys the rest of the sign-in by its own session, which it reads from here.
            responses["PASSWORD_CLAIM_SECRET_BLOCK"] = pending["session"]
            session = pending["session"]
        answer = original(self, session, client_id, challenge_name, responses)
        if pool is not None:
            answer = _new_password_parameters(pool, responses.get("USERNAME", ""), answer)
        return _strings(answer)

    return respond_to_auth_challenge


class UnsupportedOperation(JsonRESTError):
    def __init__(self, message: str):
        super().__init__(error_type="UnsupportedOperationException", message=message)


class UnsupportedTokenType(JsonRESTError):
    def __init__(self, message: str):
        super().__init__(error_type="UnsupportedTokenTypeException", message=message)


def jwt_claims(token: str) -> dict | None:
    """The claims of a JWT's payload (unverified), or None for a string that is not one."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return None
    return claims if isinstance(claims, dict) else None


def revoke_token(self: CognitoIdpResponse) -> str:
    token = self._get_param("Token") or ""
    client_id = self._get_param("ClientId") or ""
    backend = RegionAgnosticBackend(self.current_account, self.region)._find_backend_for_clientid(client_id)
    pool = _pool_of_client(backend, client_id)
    if pool is None:
        raise JsonRESTError("ResourceNotFoundException", client_id)
    if not pool.clients[client_id].extended_config.get("EnableTokenRevocation", True):
        raise UnsupportedOperation("Token revocation isn't enabled for this app client.")
    if token not in pool.refresh_tokens:
        raise UnsupportedTokenType("The token is not a refresh token of this app client.")
    issued = pool.refresh_tokens[token]
    if issued is not None:
        issued_to, _, origin_jti = issued
        if issued_to != client_id:
            raise UnsupportedTokenType("The token is not a refresh token of this app client.")
        pool.refresh_tokens[token] = None
        for access_token in list(pool.access_tokens):
            if (jwt_claims(access_token) or {}).get("origin_jti") == origin_jti:
                pool.access_tokens.pop(access_token, None)
    return "{}"


def _writable(pool, access_token: str, attributes: list) -> None:
    """Refuses attributes the token's app client may not write (its WriteAttributes)."""
    issued = pool.access_tokens.get(access_token)
    if issued is None:
        return
    client = pool.clients.get(issued[0])
    allowed = client.extended_config.get("WriteAttributes") if client else None
    if allowed and any(a["Name"] not in allowed for a in attributes):
        raise NotAuthorizedError("A client attempted to write unauthorized attribute")


def _email_update(pool, user, attributes: list, admin: bool) -> list:
    """The attributes a change applies: a new email is unverified, or waits in a keepOriginal pool."""
    given = {a["Name"]: a["Value"] for a in attributes}
    email = given.get("email")
    if email is None or email == user.attribute_lookup.get("email"):
        return attributes
    if admin and given.get("email_verified") == "true":
        return attributes
    keep = "email" in (
        (pool.extended_config.get("UserAttributeUpdateSettings") or {}).get(
            "AttributesRequireVerificationBeforeUpdate"
        )
        or []
    )
    rest = [a for a in attributes if a["Name"] not in ("email", "email_verified")]
    if keep and user.attribute_lookup.get("email_verified") == "true":
        return rest  # the new address waits for a verification this emulator never sends
    return [*rest, {"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "false"}]


def _update_own(original):
    def update_user_attributes(self, access_token, attributes):
        for pool in self.user_pools.values():
            if access_token in pool.access_tokens:
                _writable(pool, access_token, attributes or [])
                user = pool._get_user(pool.access_tokens[access_token][1])
                if user is not None:
                    attributes = _email_update(pool, user, attributes or [], admin=False)
                break
        return original(self, access_token, attributes)

    return update_user_attributes


def _update_as_admin(original):
    def admin_update_user_attributes(self, user_pool_id, username, attributes):
        pool = self.describe_user_pool(user_pool_id)
        user = pool._get_user(username)
        if user is not None:
            attributes = _email_update(pool, user, attributes or [], admin=True)
        return original(self, user_pool_id, username, attributes)

    return admin_update_user_attributes


def patch_user_pool_auth() -> None:
    """Applied after moto_cognito_mfa's patches, which it wraps."""
    CognitoIdpBackend.initiate_auth = _initiate(CognitoIdpBackend.initiate_auth)
    CognitoIdpBackend.respond_to_auth_challenge = _respond(CognitoIdpBackend.respond_to_auth_challenge)
    CognitoIdpBackend.update_user_attributes = _update_own(CognitoIdpBackend.update_user_attributes)
    CognitoIdpBackend.admin_update_user_attributes = _update_as_admin(
        CognitoIdpBackend.admin_update_user_attributes
    )
    CognitoIdpResponse.revoke_token = revoke_token
