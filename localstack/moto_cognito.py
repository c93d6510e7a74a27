"""Cognito identity pools on moto, as the reviewer sign-in uses them.

moto's cognito-identity hands every caller the same identity and the same fixed key:
GetId ignores the login and makes a new identity on every call, GetCredentialsForIdentity
answers `TESTACCESSKEY12345` / `ABCSECRETKEY` to anyone, no role is assumed, and there is no
SetIdentityPoolRoles. Two people signed in would be one caller. Here, as Cognito does
(https://docs.aws.amazon.com/cognito/latest/developerguide/authentication-flow.html):

- GetId with a user pool ID token (`Logins`) checks that the pool issued it and that it has
  not expired, and answers the same identity for the same person (pool and `sub`) every time;
  without a login it is refused when the pool allows no guests.
- SetIdentityPoolRoles / GetIdentityPoolRoles keep the pool's roles and role mappings.
- GetCredentialsForIdentity checks the login again (it must be the identity's own), picks the
  role (a `Token` mapping takes `CustomRoleArn` when it is among the token's `cognito:roles`,
  else `cognito:preferred_role`, else `AmbiguousRoleResolution`:
  https://docs.aws.amazon.com/cognito/latest/developerguide/role-based-access-control.html),
  and assumes it through moto's STS with the session name `CognitoIdentityCredentials`, so each
  sign-in gets keys of its own, known to STS (GetCallerIdentity names the assumed role).
- The user pool's ID token carries `cognito:roles` and `cognito:preferred_role` (the role of
  the person's group with the lowest precedence) as Cognito writes them
  (https://docs.aws.amazon.com/cognito/latest/developerguide/cognito-user-pools-user-groups.html).

User pools' TOTP MFA (a secret per person, codes checked, MFA_SETUP where the pool requires MFA)
is modelled in moto_cognito_mfa.py; the app client's auth flows, SRP, RevokeToken and who may
write which attribute in moto_cognito_auth.py.

API Gateway's IAM authorization knows, for a key Cognito handed out, the identity behind it
and puts it in the request context. The local status API asks this launcher the same:
`GET /_clause-review/cognito-credentials/<AccessKeyId>` answers the key's secret, session
token, expiry, identity, pool, amr and role session ARN, or 404 for a key it did not hand out.
"""

import json
import threading
import time

from moto.cognitoidentity.models import cognitoidentity_backends
from moto.cognitoidentity.responses import CognitoIdentityResponse
from moto.cognitoidp.models import CognitoIdpUserPool, cognitoidp_backends
from moto.core.exceptions import JsonRESTError
from moto.sts.models import sts_backends
from moto_cognito_auth import jwt_claims, patch_user_pool_auth
from moto_cognito_mfa import patch_totp_mfa

LOOKUP_PREFIX = "/_clause-review/cognito-credentials/"
SESSION_NAME = "CognitoIdentityCredentials"
CREDENTIAL_SECONDS = 3600

_lock = threading.Lock()
_roles: dict[str, dict] = {}  # identity pool id -> {"Roles": …, "RoleMappings": …}
_identities: dict[tuple[str, str, str], str] = {}  # (pool, provider, sub) -> identity id
_logins: dict[str, tuple[str, str]] = {}  # identity id -> (provider, sub)
_credentials: dict[str, dict] = {}  # access key id -> what the lookup answers


class NotAuthorized(JsonRESTError):
    def __init__(self, message: str):
        super().__init__(error_type="NotAuthorizedException", message=message)


class NotFound(JsonRESTError):
    def __init__(self, message: str):
        super().__init__(error_type="ResourceNotFoundException", message=message)


def _claims(token: str) -> dict:
    claims = jwt_claims(token)
    if claims is None:
        raise NotAuthorized("Invalid login token. Not a valid OpenId Connect identity token.")
    return claims


def _verified_login(account_id: str, pool, logins: dict | None) -> tuple[str, dict]:
    """The (provider, claims) of the one user pool login the identity pool accepts."""
    if not logins:
        if pool.allow_unauthenticated_identities:
            raise NotAuthorized("Guest identities are not modelled by this emulator.")
        raise NotAuthorized("Unauthenticated access is not supported for this identity pool.")
    accepted = {p["ProviderName"]: p["ClientId"] for p in pool.cognito_identity_providers or []}
    for provider, token in logins.items():
        if provider not in accepted:
            raise NotAuthorized(f"Invalid login token. Issuer doesn't match providerName: {provider}")
        region, _, user_pool_id = provider.removeprefix("cognito-idp.").partition(".amazonaws.com/")
        user_pool = cognitoidp_backends[account_id][region].user_pools.get(user_pool_id)
        issued = user_pool.id_tokens.get(token) if user_pool else None
        claims = _claims(token)
        if issued is None or claims.get("token_use") != "id":
            raise NotAuthorized("Invalid login token. Not a valid OpenId Connect identity token.")
        if claims.get("exp", 0) <= time.time():
            raise NotAuthorized("Invalid login token. Token expired: the ID token has expired.")
        if claims.get("aud") != accepted[provider]:
            raise NotAuthorized("Invalid login token. Incorrect token audience.")
        return provider, claims
    raise NotAuthorized("Invalid login token.")


def _role_for(pool_id: str, provider: str, claims: dict, custom: str | None) -> str:
    config = _roles.get(pool_id, {})
    authenticated = config.get("Roles", {}).get("authenticated")
    mapping = next(
        (m for key, m in config.get("RoleMappings", {}).items() if key.split(":")[0] == provider),
        None,
    )
    if mapping and mapping.get("Type") == "Token":
        roles = claims.get("cognito:roles") or []
        if custom and custom in roles:
            return custom
        if claims.get("cognito:preferred_role"):
            return claims["cognito:preferred_role"]
        if mapping.get("AmbiguousRoleResolution") == "Deny":
            raise NotAuthorized("Ambiguous role mapping rules for: " + provider)
    if not authenticated:
        raise JsonRESTError(
            "InvalidIdentityPoolConfigurationException",
            "Invalid identity pool configuration. Check assigned IAM roles for this pool.",
        )
    return authenticated


def _pool(response: CognitoIdentityResponse, pool_id: str):
    region = pool_id.split(":")[0]
    pool = cognitoidentity_backends[response.current_account][region].identity_pools.get(pool_id)
    if pool is None:
        raise NotFound(f"IdentityPool '{pool_id}' not found.")
    return pool


def get_id(self: CognitoIdentityResponse) -> str:
    pool_id = self._get_param("IdentityPoolId")
    pool = _pool(self, pool_id)
    provider, claims = _verified_login(self.current_account, pool, self._get_param("Logins"))
    key = (pool_id, provider, claims["sub"])
    with _lock:
        identity_id = _identities.get(key)
        if identity_id is None:
            identity_id = json.loads(self.backend.get_id(pool_id))["IdentityId"]
            _identities[key] = identity_id
            _logins[identity_id] = (provider, claims["sub"])
    return json.dumps({"IdentityId": identity_id})


def get_credentials_for_identity(self: CognitoIdentityResponse) -> str:
    identity_id = self._get_param("IdentityId")
    with _lock:
        login = _logins.get(identity_id)
        pool_id = next((k[0] for k, v in _identities.items() if v == identity_id), None)
    if login is None or pool_id is None:
        raise NotFound(f"Identity '{identity_id}' not found.")
    pool = _pool(self, pool_id)
    provider, claims = _verified_login(self.current_account, pool, self._get_param("Logins"))
    if (provider, claims["sub"]) != login:
        raise NotAuthorized("Logins don't match. Please include at least one valid login for this identity.")
    role_arn = _role_for(pool_id, provider, claims, self._get_param("CustomRoleArn"))
    region = pool_id.split(":")[0]
    assumed = sts_backends[self.current_account]["aws"].assume_role_with_web_identity(
        region_name=region,
        role_session_name=SESSION_NAME,
        role_arn=role_arn,
        policy=None,
        duration=CREDENTIAL_SECONDS,
        external_id=None,
    )
    expiration = assumed.expiration.timestamp()
    with _lock:
        _credentials[assumed.access_key_id] = {
            "SecretAccessKey": assumed.secret_access_key,
            "SessionToken": assumed.session_token,
            "Expiration": expiration,
            "IdentityId": identity_id,
            "IdentityPoolId": pool_id,
            "Amr": ["authenticated", provider, f"{provider}:CognitoSignIn:{claims['sub']}"],
            "Arn": assumed.arn,
            "UserId": assumed.user_id,
            "RoleArn": role_arn,
        }
    return json.dumps(
        {
            "IdentityId": identity_id,
            "Credentials": {
                "AccessKeyId": assumed.access_key_id,
                "SecretKey": assumed.secret_access_key,
                "SessionToken": assumed.session_token,
                "Expiration": expiration,
            },
        }
    )


def set_identity_pool_roles(self: CognitoIdentityResponse) -> str:
    pool_id = self._get_param("IdentityPoolId")
    _pool(self, pool_id)
    with _lock:
        _roles[pool_id] = {
            "Roles": self._get_param("Roles") or {},
            "RoleMappings": self._get_param("RoleMappings") or {},
        }
    return ""


def get_identity_pool_roles(self: CognitoIdentityResponse) -> str:
    pool_id = self._get_param("IdentityPoolId")
    _pool(self, pool_id)
    with _lock:
        return json.dumps({"IdentityPoolId": pool_id, **_roles.get(pool_id, {})})


def _group_roles(original):
    def extra_data(self: CognitoIdpUserPool, client_id: str, username: str) -> dict:
        data = original(self, client_id, username)
        groups = sorted(
            (g for g in self._get_user(username).groups if g.role_arn),
            key=lambda g: g.precedence if g.precedence is not None else 2**31,
        )
        if groups:
            data["cognito:roles"] = [g.role_arn for g in groups]
            ties = [g for g in groups if g.precedence == groups[0].precedence]
            if len(ties) == 1:
                data["cognito:preferred_role"] = groups[0].role_arn
        return data

    return extra_data


class CredentialLookup:
    """WSGI middleware answering the local status API's question about a key (see above)."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if not path.startswith(LOOKUP_PREFIX):
            return self.app(environ, start_response)
        with _lock:
            found = _credentials.get(path[len(LOOKUP_PREFIX) :])
        status = "200 OK" if found else "404 Not Found"
        body = json.dumps(found or {"message": "no such key was handed out"}).encode()
        start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]


def patch_cognito() -> None:
    CognitoIdentityResponse.get_id = get_id
    CognitoIdentityResponse.get_credentials_for_identity = get_credentials_for_identity
    CognitoIdentityResponse.set_identity_pool_roles = set_identity_pool_roles
    CognitoIdentityResponse.get_identity_pool_roles = get_identity_pool_roles
    original = CognitoIdpUserPool.get_user_extra_data_by_client_id
    CognitoIdpUserPool.get_user_extra_data_by_client_id = _group_roles(original)
    patch_totp_mfa()
    patch_user_pool_auth()
