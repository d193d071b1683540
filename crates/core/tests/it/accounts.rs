//! A dashboard member's role (`wire::scope::authorize_member`, the `dt_...` credential's
//! authorization): an owner and a developer run what a secret key runs; a viewer every read and
//! no write (403 `forbidden_role`), refused before the operation runs.

use crate::common::{op, Fx};
use serde_json::{json, Value};
use tokenpad_core::error::ErrorCode;
use tokenpad_core::model::account::Role;
use tokenpad_core::wire::scope::authorize_member;

#[test]
fn a_viewer_reads_and_never_writes() {
    let mut fx = Fx::new();
    fx.create_token(json!({ "name": "Alpha", "symbol": "ALPHA" }));
    fx.holder("alice");
    let writes = [
        ("PUT", "/holder/bob", json!({})),
        (
            "PATCH",
            "/merchant/settings",
            json!({ "privateMode": true }),
        ),
        ("POST", "/keys", json!({ "name": "Orders" })),
    ];
    for (method, path, body) in writes {
        let write = op(method, path, body);
        assert!(write.writes(), "{method} {path}");
        let refused = authorize_member(&fx.store, Role::Viewer, &fx.ctx.merchant, write.clone())
            .expect_err("a viewer's write");
        assert_eq!(refused.code, ErrorCode::ForbiddenRole, "{method} {path}");
        assert_eq!(refused.status(), 403);
        for role in [Role::Owner, Role::Developer] {
            assert!(
                authorize_member(&fx.store, role, &fx.ctx.merchant, write.clone()).is_ok(),
                "{role:?} {method} {path}"
            );
        }
    }
    for path in [
        "/holder/alice",
        "/keys",
        "/merchant/settings",
        "/merchant/parked-work",
        "/merchant/chain",
    ] {
        let read = op("GET", path, Value::Null);
        for role in [Role::Owner, Role::Developer, Role::Viewer] {
            assert!(
                authorize_member(&fx.store, role, &fx.ctx.merchant, read.clone()).is_ok(),
                "{role:?} GET {path}"
            );
        }
    }
}

mod flows {
    //! One account's operations over the in-memory port (`store::accounts::MemAccount`): the
    //! links, the sessions, the throttle and the mails, as the account's object runs them.
    use tokenpad_core::error::ErrorCode;
    use tokenpad_core::error::Result;
    use tokenpad_core::model::account::{Invitation, Role, RESET_TTL, SESSION_IDLE, VERIFY_TTL};
    use tokenpad_core::model::ids::MerchantId;
    use tokenpad_core::ops::accounts::account::{self as acct, AccountShell, Login};
    use tokenpad_core::store::accounts::MemAccount;

    struct Shell {
        n: u8,
    }

    impl AccountShell for Shell {
        fn random16(&mut self) -> Result<[u8; 16]> {
            self.n = self.n.wrapping_add(1);
            Ok([self.n; 16])
        }
        fn random32(&mut self) -> Result<[u8; 32]> {
            self.n = self.n.wrapping_add(1);
            Ok([self.n; 32])
        }
        fn object_id(&self) -> &str {
            "ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12"
        }
    }

    const EMAIL: &str = "ann@example.com";
    const PASS: &str = "correct horse battery";
    const ORIGIN: &str = "https://tp.example";

    fn token_of(store: &MemAccount, page: &str) -> String {
        let link = store
            .outbox
            .iter()
            .rev()
            .flat_map(|m| m.links.iter())
            .find(|l| l.contains(&format!("#/{page}?token=")))
            .expect("a link");
        assert!(link.starts_with(&format!("{ORIGIN}/dashboard/#/{page}?token=")));
        link.split("token=").nth(1).expect("a token").to_string()
    }

    fn logged_in(store: &mut MemAccount, shell: &mut Shell, pass: &str, now: u64) -> String {
        match acct::login(store, shell, pass, None, now).expect("login") {
            Login::In { cookie, .. } => cookie,
            Login::Refused(e) => panic!("refused: {e:?}"),
        }
    }

    fn refused(outcome: Result<Login>) -> ErrorCode {
        match outcome.expect("an answer") {
            Login::Refused(e) => e.code,
            Login::In { .. } => panic!("logged in"),
        }
    }

    fn verified() -> (MemAccount, Shell) {
        let (mut store, mut shell) = (MemAccount::default(), Shell { n: 0 });
        acct::signup(&mut store, &mut shell, EMAIL, PASS, ORIGIN, 0).expect("signup");
        let token = token_of(&store, "verify");
        assert_eq!(acct::verify(&mut store, &token, 1).expect("verify"), EMAIL);
        (store, shell)
    }

    #[test]
    fn signup_mails_a_link_that_verifies_once_within_a_day() {
        let (mut store, mut shell) = (MemAccount::default(), Shell { n: 0 });
        acct::signup(&mut store, &mut shell, EMAIL, PASS, ORIGIN, 0).expect("signup");
        assert_eq!(store.outbox.len(), 1);
        assert_eq!(store.outbox[0].to, EMAIL);
        let token = token_of(&store, "verify");
        // The link is stored as a hash only.
        assert!(store.links.keys().all(|h| !token.contains(h.as_str())));
        assert_eq!(
            refused(acct::login(&mut store, &mut shell, PASS, None, 1)),
            ErrorCode::EmailNotVerified
        );
        let late = acct::verify(&mut store.clone(), &token, VERIFY_TTL).unwrap_err();
        assert_eq!(late.code, ErrorCode::InvalidLink);
        acct::verify(&mut store, &token, 1).expect("verify");
        assert_eq!(
            acct::verify(&mut store, &token, 2).unwrap_err().code,
            ErrorCode::InvalidLink
        );
        // Signing up again: a mail saying so, and the password unchanged.
        acct::signup(&mut store, &mut shell, EMAIL, "another password", ORIGIN, 3).expect("signup");
        assert!(store.outbox[1].subject.contains("already have"));
        logged_in(&mut store, &mut shell, PASS, 4);
        // A weak password changes nothing.
        let weak = acct::signup(
            &mut MemAccount::default(),
            &mut shell,
            EMAIL,
            "short",
            ORIGIN,
            0,
        );
        assert_eq!(weak.unwrap_err().code, ErrorCode::WeakPassword);
    }

    #[test]
    fn a_wrong_password_and_an_unknown_email_are_refused_alike_and_counted() {
        let (mut store, mut shell) = verified();
        let mut unknown = MemAccount::default();
        assert_eq!(
            refused(acct::login(&mut unknown, &mut shell, PASS, None, 5)),
            ErrorCode::InvalidCredentials
        );
        assert_eq!(unknown.attempts.failures, 1);
        for i in 0..5 {
            assert_eq!(
                refused(acct::login(
                    &mut store,
                    &mut shell,
                    "wrong password",
                    None,
                    10 + i
                )),
                ErrorCode::InvalidCredentials
            );
        }
        // Closed for the window, to the right password too.
        assert_eq!(
            refused(acct::login(&mut store, &mut shell, PASS, None, 20)),
            ErrorCode::TooManyAttempts
        );
        assert!(store.sessions.is_empty());
    }

    #[test]
    fn sessions_rotate_expire_and_end() {
        let (mut store, mut shell) = verified();
        let first = logged_in(&mut store, &mut shell, PASS, 10);
        let (account, s) = acct::session(&mut store, &first, 11).expect("live");
        assert_eq!(account.email, EMAIL);
        // Only hashes are kept.
        assert!(!store.sessions.contains_key(&first));
        // Idle for 12 hours: over.
        assert_eq!(
            acct::session(&mut store.clone(), &first, 11 + SESSION_IDLE)
                .unwrap_err()
                .code,
            ErrorCode::NotLoggedIn
        );
        // A login with the old cookie rotates it.
        let second =
            match acct::login(&mut store, &mut shell, PASS, Some(&first), 12).expect("login") {
                Login::In { cookie, .. } => cookie,
                Login::Refused(e) => panic!("{e:?}"),
            };
        assert_ne!(first, second);
        assert_eq!(
            acct::session(&mut store, &first, 13).unwrap_err().code,
            ErrorCode::NotLoggedIn
        );
        let third = logged_in(&mut store, &mut shell, PASS, 14);
        acct::logout(&mut store, &second, 15).expect("logout");
        assert!(acct::session(&mut store, &second, 16).is_err());
        assert!(acct::session(&mut store, &third, 16).is_ok());
        acct::logout_all(&mut store, &third, 17).expect("logout all");
        assert!(acct::session(&mut store, &third, 18).is_err());
        assert!(!s.id.is_empty());
    }

    #[test]
    fn a_reset_link_sets_a_new_password_once_within_the_hour_and_ends_every_session() {
        let (mut store, mut shell) = verified();
        let cookie = logged_in(&mut store, &mut shell, PASS, 10);
        acct::reset(&mut store, &mut shell, ORIGIN, 20).expect("reset");
        let token = token_of(&store, "reset");
        let late = acct::reset_confirm(
            &mut store.clone(),
            &mut shell,
            &token,
            "new password!",
            20 + RESET_TTL,
        );
        assert_eq!(late.unwrap_err().code, ErrorCode::InvalidLink);
        assert_eq!(
            acct::reset_confirm(&mut store, &mut shell, &token, "new password!", 21)
                .expect("confirm"),
            EMAIL
        );
        assert!(acct::session(&mut store, &cookie, 22).is_err());
        assert_eq!(
            refused(acct::login(&mut store, &mut shell, PASS, None, 23)),
            ErrorCode::InvalidCredentials
        );
        logged_in(&mut store, &mut shell, "new password!", 24);
        let again = acct::reset_confirm(&mut store, &mut shell, &token, "newer password!", 25);
        assert_eq!(again.unwrap_err().code, ErrorCode::InvalidLink);
        // No account: no mail.
        let mut nobody = MemAccount::default();
        acct::reset(&mut nobody, &mut shell, ORIGIN, 0).expect("reset");
        assert!(nobody.outbox.is_empty() && nobody.links.is_empty());
    }

    #[test]
    fn only_the_invited_email_accepts_an_invitation_once() {
        let (mut store, mut shell) = (MemAccount::default(), Shell { n: 0 });
        let invitation = Invitation {
            email: "bob@example.com".into(),
            merchant_id: MerchantId::new_unchecked("c".repeat(32)),
            merchant_name: "Shop".into(),
            role: Role::Viewer,
        };
        acct::invited(&mut store, &mut shell, &invitation, EMAIL, ORIGIN, 0).expect("invited");
        assert_eq!(store.outbox[0].to, "bob@example.com");
        let token = token_of(&store, "invite");
        let other = acct::accept_invite(&mut store, &token, "eve@example.com", 1).unwrap_err();
        assert_eq!(other.code, ErrorCode::InviteForAnotherEmail);
        assert_eq!(
            acct::accept_invite(&mut store, &token, "bob@example.com", 2).expect("accept"),
            invitation
        );
        let again = acct::accept_invite(&mut store, &token, "bob@example.com", 3).unwrap_err();
        assert_eq!(again.code, ErrorCode::InvalidLink);
    }
}
