//! The page: plain HTML, CSS and JavaScript modules compiled into the binary.

use axum::extract::rejection::PathRejection;
use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// Name, content type and text of every asset under `/assets/`.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../assets/style.css"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/app.js"),
    ),
    (
        "api.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/api.js"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/board.js"),
    ),
    (
        "graph.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/graph.js"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_str!("../assets/favicon.svg"),
    ),
];

const INDEX: &str = include_str!("../assets/index.html");

fn page(content_type: &'static str, text: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        text,
    )
        .into_response()
}

/// `GET /`.
pub(crate) async fn index() -> Response {
    page("text/html; charset=utf-8", INDEX)
}

/// `GET /assets/{file}`. A name that is not UTF-8 once decoded (`%ff`) is no asset either: a
/// JSON 404 like any other.
pub(crate) async fn asset(file: Result<Path<String>, PathRejection>) -> Response {
    let file = match file {
        Ok(Path(file)) => file,
        Err(_) => {
            return ApiError::NotFound("no such asset (its name is not UTF-8)".into())
                .into_response()
        }
    };
    match ASSETS.iter().find(|(name, _, _)| *name == file) {
        Some((_, ct, text)) => page(ct, text),
        None => ApiError::NotFound(format!("no asset '{file}'")).into_response(),
    }
}
