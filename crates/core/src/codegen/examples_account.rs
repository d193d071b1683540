//! The examples of the account API (`/account/...`, `GET /admin/mailbox`): each read through
//! its wire type ([`typed`], [`accepted`]), so a field the type does not have fails the
//! generation.

use super::examples_admin::{accepted, typed};
use crate::wire::account::{
    Accepted, Account, AccountMerchant, AccountMerchantCreated, CreateMerchant, Credentials,
    DashboardToken, EmailOnly, Invite, InviteRequest, LinkToken, Mailbox, Members, RemoveMember,
    ResetConfirm, ResetRequest,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;

type R<T> = Result<T, String>;

/// The account API's examples for a merchant `id`.
pub fn account_examples(id: &str) -> R<BTreeMap<String, Value>> {
    let mut out = BTreeMap::new();
    let mut put = |name: &str, v: R<Value>| -> R<()> {
        out.insert(name.to_string(), v?);
        Ok(())
    };
    let email = "ann@example.com";
    let creds = json!({ "email": email, "password": "correct horse battery" });
    let link = format!("{}.{}", "4f".repeat(32), "a7".repeat(32));
    let merchant = json!({ "merchantId": id, "name": "Acme Rewards", "role": "owner" });
    let account = json!({ "email": email, "merchants": [merchant] });
    put(
        "accountSignup.request",
        accepted::<Credentials>(creds.clone()),
    )?;
    put(
        "accountSignup.202",
        typed::<Accepted>(&json!({ "status": "verification_sent" })),
    )?;
    put(
        "accountVerify.request",
        accepted::<LinkToken>(json!({ "token": link })),
    )?;
    put(
        "accountVerify.200",
        typed::<EmailOnly>(&json!({ "email": email })),
    )?;
    put("accountLogin.request", accepted::<Credentials>(creds))?;
    put("accountLogin.200", typed::<Account>(&account))?;
    put("accountLogout.request", Ok(json!({})))?;
    put("accountLogoutAll.request", Ok(json!({})))?;
    put(
        "accountPasswordReset.request",
        accepted::<ResetRequest>(json!({ "email": email })),
    )?;
    put(
        "accountPasswordReset.202",
        typed::<Accepted>(&json!({ "status": "reset_sent" })),
    )?;
    put(
        "accountPasswordResetConfirm.request",
        accepted::<ResetConfirm>(json!({ "token": link, "password": "a brand new password" })),
    )?;
    put(
        "accountPasswordResetConfirm.200",
        typed::<EmailOnly>(&json!({ "email": email })),
    )?;
    put("getAccount.200", typed::<Account>(&account))?;
    put(
        "accountCreateMerchant.request",
        accepted::<CreateMerchant>(json!({ "name": "Acme Rewards" })),
    )?;
    put(
        "accountCreateMerchant.201",
        typed::<AccountMerchantCreated>(&json!({
            "merchant": merchant, "merchantAddress": "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf",
            "secretKey": format!("sk_{id}_{}", "0f".repeat(32)), "publicKey": format!("pk_{id}_{}", "a1".repeat(16))
        })),
    )?;
    put("accountDashboardToken.request", Ok(json!({})))?;
    put(
        "accountDashboardToken.200",
        typed::<DashboardToken>(&json!({
            "token": format!("dt_{id}_eyJhIjoiYW5uQGV4YW1wbGUuY29tIn0.c2lnbmF0dXJlLW9mLXRoZS1wYXlsb2Fk"),
            "expiresAt": 1_893_456_300_000u64, "role": "owner"
        })),
    )?;
    put(
        "accountMembers.200",
        typed::<Members>(&json!({
            "members": [{ "email": email, "role": "owner", "addedAt": "2030-01-01T00:00:00.000Z" }],
            "invites": [{ "email": "bob@example.com", "role": "viewer", "expiresAt": "2030-01-08T00:00:00.000Z" }]
        })),
    )?;
    put(
        "accountInvite.request",
        accepted::<InviteRequest>(json!({ "email": "bob@example.com", "role": "viewer" })),
    )?;
    put(
        "accountInvite.201",
        typed::<Invite>(
            &json!({ "email": "bob@example.com", "role": "viewer", "expiresAt": "2030-01-08T00:00:00.000Z" }),
        ),
    )?;
    put(
        "accountAcceptInvite.request",
        accepted::<LinkToken>(json!({ "token": link })),
    )?;
    put(
        "accountAcceptInvite.200",
        typed::<AccountMerchant>(
            &json!({ "merchantId": id, "name": "Acme Rewards", "role": "viewer" }),
        ),
    )?;
    put(
        "accountRemoveMember.request",
        accepted::<RemoveMember>(json!({ "email": "bob@example.com" })),
    )?;
    put(
        "accountRemoveMember.200",
        typed::<Members>(&json!({
            "members": [{ "email": email, "role": "owner", "addedAt": "2030-01-01T00:00:00.000Z" }],
            "invites": []
        })),
    )?;
    let mailbox = json!({ "messages": [{
        "to": email, "subject": "Verify your tokenpad email",
        "text": format!("Welcome to tokenpad. Verify your email to log in (the link works for 24 hours):\n\nhttps://tokenpad.example/dashboard/#/verify?token={link}\n"),
        "links": [format!("https://tokenpad.example/dashboard/#/verify?token={link}")],
        "sentAt": "2030-01-01T00:00:00.000Z"
    }]});
    put("accountDevMailbox.200", typed::<Mailbox>(&mailbox))?;
    put("adminMailbox.200", typed::<Mailbox>(&mailbox))?;
    Ok(out)
}
