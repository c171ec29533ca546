//! kalah serve: the web page and JSON API.
