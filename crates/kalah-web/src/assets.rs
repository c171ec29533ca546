//! The page: plain HTML, CSS and JavaScript modules compiled into the binary.

use std::sync::OnceLock;

use axum::extract::rejection::PathRejection;
use axum::extract::Path;
use axum::http::{header, HeaderMap, StatusCode};
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

/// The entity tag of a text served: a hash of it, so that a changed page gets a new one (the
/// page is compiled into the binary; one `kalah` serves one version of it). Each text's tag is
/// hashed once, at the first request for any of them.
fn etag(text: &'static str) -> String {
    use std::hash::{Hash, Hasher};
    static TAGS: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    let hash = |t: &str| {
        let mut h = std::hash::DefaultHasher::new();
        t.hash(&mut h);
        format!("\"{:016x}\"", h.finish())
    };
    let tags = TAGS.get_or_init(|| {
        ASSETS
            .iter()
            .map(|(_, _, t)| *t)
            .chain([INDEX])
            .map(|t| (t, hash(t)))
            .collect()
    });
    match tags.iter().find(|(t, _)| std::ptr::eq(*t, text)) {
        Some((_, tag)) => tag.clone(),
        None => hash(text),
    }
}

/// Whether the request's `If-None-Match` names `tag` (or is `*`): the browser's copy is this
/// text, and a `304 Not Modified` answers it.
fn unchanged(request: &HeaderMap, tag: &str) -> bool {
    request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == tag || t == "*")
}

/// A page or asset, revalidated at each use (`no-cache`) against its entity tag: a reload sends
/// the tag back and gets `304` with no body while the page is the same (tester 108: every
/// reload fetched the whole 142 KB again). The router compresses the text (gzip) for the
/// browsers that accept it.
fn page(request: &HeaderMap, content_type: &'static str, text: &'static str) -> Response {
    let tag = etag(text);
    let headers = [
        (header::CONTENT_TYPE, content_type.to_string()),
        (header::CACHE_CONTROL, "no-cache".to_string()),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_string()),
        (header::ETAG, tag.clone()),
    ];
    if unchanged(request, &tag) {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    (headers, text).into_response()
}

/// `GET /`.
pub(crate) async fn index(request: HeaderMap) -> Response {
    page(&request, "text/html; charset=utf-8", INDEX)
}

/// `GET /assets/{file}`. A name that is not UTF-8 once decoded (`%ff`) is no asset either: a
/// JSON 404 like any other.
pub(crate) async fn asset(
    request: HeaderMap,
    file: Result<Path<String>, PathRejection>,
) -> Response {
    let file = match file {
        Ok(Path(file)) => file,
        Err(_) => {
            return ApiError::NotFound("no such asset (its name is not UTF-8)".into())
                .into_response()
        }
    };
    match ASSETS.iter().find(|(name, _, _)| *name == file) {
        Some((_, ct, text)) => page(&request, ct, text),
        None => ApiError::NotFound(format!("no asset '{file}'")).into_response(),
    }
}
