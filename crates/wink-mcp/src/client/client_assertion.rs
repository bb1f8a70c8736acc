//! `private_key_jwt` client authentication (RFC 7523 §2.2, as the MCP client credentials
//! extension uses it): the client proves who it is at the token endpoint with a JWT it signs with
//! its private key, instead of a secret.
//!
//! The assertion's claims are `iss` = `sub` = the client id, `aud` = the authorization server's
//! issuer, `iat`, `exp` (five minutes later) and a fresh `jti`; its header is typed
//! `client-authentication+jwt`. Keys are PEM: PKCS#8 (`BEGIN PRIVATE KEY`) EC P-256 (`ES256`) or
//! P-384 (`ES384`), or RSA as PKCS#8 or PKCS#1 (`BEGIN RSA PRIVATE KEY`; `RS256`, `RS384`,
//! `RS512`, `PS256`, `PS384` or `PS512`, the first of these the server advertises). Signing is
//! `ring`'s, the TLS stack's own crypto.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, RsaKeyPair};
use rustls::pki_types::PrivateKeyDer;
use rustls::pki_types::pem::PemObject;
use serde_json::{Value, json};

/// How long an assertion is valid, in seconds.
pub(crate) const ASSERTION_LIFETIME_S: u64 = 300;

/// The `client_assertion_type` of a JWT assertion.
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// Where a `private_key_jwt` client's private key is (a prompt file's `oauth.private_key_env` or
/// `oauth.private_key_file`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PrivateKeySource {
    /// An environment variable holding the PEM text.
    Env(String),
    /// A PEM file.
    File(PathBuf),
}

impl PrivateKeySource {
    /// The PEM text (read when a token is requested, never earlier).
    pub(crate) fn read(&self) -> Result<Vec<u8>, String> {
        match self {
            Self::Env(var) => std::env::var(var)
                .map(String::into_bytes)
                .map_err(|_| format!("oauth.private_key_env names ${var}, which is not set")),
            Self::File(path) => std::fs::read(path).map_err(|e| {
                format!(
                    "oauth.private_key_file: cannot read {}: {e}",
                    path.display()
                )
            }),
        }
    }
}

/// A parsed private key.
#[derive(Debug)]
pub(crate) enum SigningKey {
    /// An EC key and its curve's algorithm (`ES256` or `ES384`).
    Ec(EcdsaKeyPair, &'static str),
    /// An RSA key.
    Rsa(RsaKeyPair),
}

/// The RSA algorithms wink signs with, in order of preference.
const RSA_ALGORITHMS: [&str; 6] = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];

impl SigningKey {
    /// Parses a PEM private key (see the module docs).
    pub(crate) fn from_pem(pem: &[u8]) -> Result<Self, String> {
        let der = PrivateKeyDer::from_pem_slice(pem).map_err(|e| {
            format!("the private key is not a PEM private key ({e}); expected `-----BEGIN PRIVATE KEY-----` (PKCS#8)")
        })?;
        match der {
            PrivateKeyDer::Pkcs8(pkcs8) => {
                let der = pkcs8.secret_pkcs8_der();
                let rng = SystemRandom::new();
                for (algorithm, name) in [
                    (&signature::ECDSA_P256_SHA256_FIXED_SIGNING, "ES256"),
                    (&signature::ECDSA_P384_SHA384_FIXED_SIGNING, "ES384"),
                ] {
                    if let Ok(pair) = EcdsaKeyPair::from_pkcs8(algorithm, der, &rng) {
                        return Ok(Self::Ec(pair, name));
                    }
                }
                RsaKeyPair::from_pkcs8(der).map(Self::Rsa).map_err(|e| {
                    format!("the PKCS#8 private key is neither an EC P-256/P-384 key (with its public key) nor an RSA key of 2048 bits or more: {e}")
                })
            }
            PrivateKeyDer::Pkcs1(pkcs1) => RsaKeyPair::from_der(pkcs1.secret_pkcs1_der())
                .map(Self::Rsa)
                .map_err(|e| format!("the RSA private key cannot be used: {e}")),
            PrivateKeyDer::Sec1(_) => Err("the EC private key is in SEC1 form (`BEGIN EC PRIVATE KEY`); convert it to PKCS#8 with `openssl pkcs8 -topk8 -nocrypt -in KEY.pem`".to_owned()),
            _ => Err("the private key's form is not supported; use PKCS#8 (`BEGIN PRIVATE KEY`)".to_owned()),
        }
    }

    /// The algorithm to sign with: the key's own (EC), or the first RSA algorithm the server
    /// advertises (`RS256` when it advertises none). Refused when the server advertises
    /// algorithms and none fits the key.
    pub(crate) fn algorithm(&self, advertised: Option<&[String]>) -> Result<&'static str, String> {
        let fits = |alg: &str| advertised.is_none_or(|list| list.iter().any(|a| a == alg));
        let chosen = match self {
            Self::Ec(_, alg) => Some(*alg).filter(|alg| fits(alg)),
            Self::Rsa(_) => RSA_ALGORITHMS.into_iter().find(|alg| fits(alg)),
        };
        chosen.ok_or_else(|| {
            let kind = match self {
                Self::Ec(_, alg) => format!("the key signs {alg}"),
                Self::Rsa(_) => format!("the RSA key signs {}", RSA_ALGORITHMS.join(", ")),
            };
            format!(
                "the authorization server accepts assertions signed with {} only; {kind}",
                advertised.unwrap_or_default().join(", ")
            )
        })
    }

    fn sign(&self, algorithm: &str, message: &[u8]) -> Result<Vec<u8>, String> {
        let rng = SystemRandom::new();
        let failed = |e: ring::error::Unspecified| format!("signing the assertion failed: {e}");
        match self {
            Self::Ec(pair, _) => pair
                .sign(&rng, message)
                .map(|s| s.as_ref().to_vec())
                .map_err(failed),
            Self::Rsa(pair) => {
                let padding: &'static dyn signature::RsaEncoding = match algorithm {
                    "RS384" => &signature::RSA_PKCS1_SHA384,
                    "RS512" => &signature::RSA_PKCS1_SHA512,
                    "PS256" => &signature::RSA_PSS_SHA256,
                    "PS384" => &signature::RSA_PSS_SHA384,
                    "PS512" => &signature::RSA_PSS_SHA512,
                    _ => &signature::RSA_PKCS1_SHA256,
                };
                let mut out = vec![0; pair.public().modulus_len()];
                pair.sign(padding, &rng, message, &mut out)
                    .map_err(failed)?;
                Ok(out)
            }
        }
    }
}

/// The claims of an assertion for `client_id` to the authorization server `audience`, issued at
/// `now` (seconds since the epoch) with the id `jti`.
pub(crate) fn claims(client_id: &str, audience: &str, now: u64, jti: &str) -> Value {
    json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME_S,
        "jti": jti,
    })
}

/// A signed JWT (compact form) of `claims`.
pub(crate) fn sign_jwt(
    key: &SigningKey,
    algorithm: &str,
    claims: &Value,
) -> Result<String, String> {
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let header = json!({"alg": algorithm, "typ": "client-authentication+jwt"});
    let signing_input = format!(
        "{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes())
    );
    let signature = key.sign(algorithm, signing_input.as_bytes())?;
    Ok(format!("{signing_input}.{}", b64(&signature)))
}

/// A fresh assertion for `client_id` to `audience`, signed with `key`.
pub(crate) fn assertion(
    key: &SigningKey,
    algorithm: &str,
    client_id: &str,
    audience: &str,
) -> Result<String, String> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let jti = uuid::Uuid::new_v4().to_string();
    sign_jwt(key, algorithm, &claims(client_id, audience, now, &jti))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{KeyPair, UnparsedPublicKey};

    fn b64_decode(part: &str) -> Vec<u8> {
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap()
    }

    fn pem(label: &str, der: &[u8]) -> String {
        let body = base64::engine::general_purpose::STANDARD.encode(der);
        let lines: Vec<&str> = body
            .as_bytes()
            .chunks(64)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        format!(
            "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
            lines.join("\n")
        )
    }

    fn ec_key(algorithm: &'static signature::EcdsaSigningAlgorithm) -> String {
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(algorithm, &SystemRandom::new()).unwrap();
        pem("PRIVATE KEY", pkcs8.as_ref())
    }

    #[test]
    fn an_es256_assertion_verifies_with_the_public_key_and_names_the_client() {
        let key =
            SigningKey::from_pem(ec_key(&signature::ECDSA_P256_SHA256_FIXED_SIGNING).as_bytes())
                .unwrap();
        let SigningKey::Ec(pair, "ES256") = &key else {
            panic!("not an ES256 key: {key:?}");
        };
        let public = pair.public_key().as_ref().to_vec();
        let algorithm = key.algorithm(Some(&["ES256".to_owned()])).unwrap();
        let claims = claims("client-1", "https://as.example", 1_700_000_000, "id-1");
        let jwt = sign_jwt(&key, algorithm, &claims).unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        assert_eq!(
            serde_json::from_slice::<Value>(&b64_decode(parts[0])).unwrap(),
            json!({"alg": "ES256", "typ": "client-authentication+jwt"})
        );
        assert_eq!(
            serde_json::from_slice::<Value>(&b64_decode(parts[1])).unwrap(),
            json!({"iss": "client-1", "sub": "client-1", "aud": "https://as.example",
                   "iat": 1_700_000_000, "exp": 1_700_000_300, "jti": "id-1"})
        );
        let signed = format!("{}.{}", parts[0], parts[1]);
        UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, &public)
            .verify(signed.as_bytes(), &b64_decode(parts[2]))
            .unwrap();
        // A changed payload no longer verifies.
        assert!(
            UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, &public)
                .verify(format!("{signed}x").as_bytes(), &b64_decode(parts[2]))
                .is_err()
        );
    }

    #[test]
    fn a_p384_key_signs_es384_and_the_servers_list_is_respected() {
        let key =
            SigningKey::from_pem(ec_key(&signature::ECDSA_P384_SHA384_FIXED_SIGNING).as_bytes())
                .unwrap();
        assert_eq!(key.algorithm(None).unwrap(), "ES384");
        assert_eq!(
            key.algorithm(Some(&["ES256".to_owned(), "RS256".to_owned()]))
                .unwrap_err(),
            "the authorization server accepts assertions signed with ES256, RS256 only; the key signs ES384"
        );
    }

    #[test]
    fn an_rsa_key_signs_the_first_algorithm_the_server_advertises() {
        let pem = include_str!("../../tests/fixtures/rsa_test_key.pem");
        let key = SigningKey::from_pem(pem.as_bytes()).unwrap();
        assert!(matches!(key, SigningKey::Rsa(_)));
        assert_eq!(key.algorithm(None).unwrap(), "RS256");
        let advertised = ["ES256".to_owned(), "PS256".to_owned(), "RS512".to_owned()];
        assert_eq!(key.algorithm(Some(&advertised)).unwrap(), "RS512");
        let SigningKey::Rsa(pair) = &key else {
            unreachable!()
        };
        let public = pair.public().as_ref().to_vec();
        for (alg, verify) in [
            ("RS256", &signature::RSA_PKCS1_2048_8192_SHA256),
            ("PS256", &signature::RSA_PSS_2048_8192_SHA256),
        ] {
            let jwt = sign_jwt(&key, alg, &json!({"sub": "c"})).unwrap();
            let (signed, sig) = jwt.rsplit_once('.').unwrap();
            UnparsedPublicKey::new(verify, &public)
                .verify(signed.as_bytes(), &b64_decode(sig))
                .unwrap();
        }
    }

    #[test]
    fn keys_that_cannot_sign_are_refused_with_the_reason() {
        assert!(
            SigningKey::from_pem(b"not a key")
                .unwrap_err()
                .starts_with("the private key is not a PEM private key (")
        );
        let sec1 = pem("EC PRIVATE KEY", &[0x30, 0x03, 0x02, 0x01, 0x01]);
        assert_eq!(
            SigningKey::from_pem(sec1.as_bytes()).unwrap_err(),
            "the EC private key is in SEC1 form (`BEGIN EC PRIVATE KEY`); convert it to PKCS#8 with `openssl pkcs8 -topk8 -nocrypt -in KEY.pem`"
        );
        let junk = pem("PRIVATE KEY", &[0x30, 0x03, 0x02, 0x01, 0x00]);
        assert!(
            SigningKey::from_pem(junk.as_bytes())
                .unwrap_err()
                .starts_with("the PKCS#8 private key is neither an EC P-256/P-384 key")
        );
    }

    #[test]
    fn keys_come_from_a_file_or_a_variable() {
        let path = std::env::temp_dir().join(format!("wink-key-{}.pem", std::process::id()));
        std::fs::write(&path, "PEM").unwrap();
        assert_eq!(PrivateKeySource::File(path.clone()).read().unwrap(), b"PEM");
        std::fs::remove_file(&path).unwrap();
        assert!(
            PrivateKeySource::File(path)
                .read()
                .unwrap_err()
                .starts_with("oauth.private_key_file: cannot read ")
        );
        assert_eq!(
            PrivateKeySource::Env("WINK_TEST_KEY_THAT_IS_NOT_SET".into())
                .read()
                .unwrap_err(),
            "oauth.private_key_env names $WINK_TEST_KEY_THAT_IS_NOT_SET, which is not set"
        );
    }
}
