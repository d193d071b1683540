//! The mails an account is sent: their subjects, texts and links. Links point at the
//! dashboard's pages (`<origin>/dashboard/#/verify?token=...`, `#/reset`, `#/invite`), which
//! read the token and POST it.

use crate::model::account::{Invitation, Mail};

fn mail(to: &str, subject: &str, text: String, links: Vec<String>) -> Mail {
    Mail {
        to: to.to_string(),
        subject: subject.to_string(),
        text,
        links,
    }
}

pub fn verify(to: &str, origin: &str, secret: &str) -> Mail {
    let url = format!("{origin}/dashboard/#/verify?token={secret}");
    let text = format!(
        "Welcome to tokenpad. Verify your email to log in (the link works for 24 hours):\n\n{url}\n\nIf you did not sign up, ignore this mail."
    );
    mail(to, "Verify your tokenpad email", text, vec![url])
}

pub fn already_have_account(to: &str, origin: &str) -> Mail {
    let login = format!("{origin}/dashboard/#/login");
    let forgot = format!("{origin}/dashboard/#/forgot");
    let text = format!(
        "Someone (perhaps you) tried to sign up to tokenpad with this email, which already has an account.\n\nLog in: {login}\nForgot your password? {forgot}\n\nIf it was not you, you can ignore this mail."
    );
    mail(
        to,
        "You already have a tokenpad account",
        text,
        vec![login, forgot],
    )
}

pub fn reset(to: &str, origin: &str, secret: &str) -> Mail {
    let url = format!("{origin}/dashboard/#/reset?token={secret}");
    let text = format!(
        "Someone (perhaps you) asked to reset the password of your tokenpad account. Choose a new one here (the link works for 1 hour):\n\n{url}\n\nIf it was not you, ignore this mail: your password stays as it is."
    );
    mail(to, "Reset your tokenpad password", text, vec![url])
}

pub fn invite(invitation: &Invitation, by: &str, origin: &str, secret: &str) -> Mail {
    let url = format!("{origin}/dashboard/#/invite?token={secret}");
    let text = format!(
        "{by} invites you to the tokenpad merchant \"{}\" as {}. Accept with the account of this email (sign up first if you have none; the link works for 7 days):\n\n{url}\n\nIf you did not expect it, ignore this mail.",
        invitation.merchant_name,
        invitation.role.as_str()
    );
    mail(
        &invitation.email,
        "You are invited to a tokenpad merchant",
        text,
        vec![url],
    )
}
