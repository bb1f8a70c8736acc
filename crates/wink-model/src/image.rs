//! Images a tool returned, for the providers that show a model images in tool results.
//!
//! A tool's value carries images in MCP's content form: a command tool prints
//! `{"content": [{"type": "image", "data": BASE64, "mimeType": "image/png"}, ...]}`, and the
//! result of an MCP server's tool that has no structured content is kept as its array of
//! content blocks. The model's text keeps each image as a one-line note of its type and size;
//! the adapters whose API takes images in tool results (Anthropic Messages, OpenAI Responses)
//! send the images themselves beside that text. The others (Chat Completions and the servers
//! that speak it, the embedded model, the claude CLI) send the text alone.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The image types the providers that take images in tool results accept.
const WEB_FORMATS: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// One image of a tool result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolImage {
    /// The media type (`image/png`, ...).
    pub mime_type: String,
    /// The image, base64-encoded.
    pub data: String,
}

impl ToolImage {
    /// An image of `mime_type` whose bytes are `data`, base64-encoded.
    pub fn new(mime_type: impl Into<String>, data: impl Into<String>) -> Self {
        Self {
            mime_type: mime_type.into(),
            data: data.into(),
        }
    }

    /// The image as a `data:` URL.
    ///
    /// ```
    /// let image = wink_model::ToolImage::new("image/png", "iVBORw0KGgo=");
    /// assert_eq!(image.data_url(), "data:image/png;base64,iVBORw0KGgo=");
    /// ```
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime_type, self.data)
    }

    /// Whether it is PNG, JPEG, GIF or WebP: the types Anthropic and OpenAI take. An adapter
    /// leaves other types to the text note.
    pub fn is_web_format(&self) -> bool {
        WEB_FORMATS.contains(&self.mime_type.as_str())
    }
}

/// The images in a tool's value (see the module docs): the image blocks of its `content`
/// array, or of the value itself when it is an array of content blocks, in order. A block whose
/// `mimeType` is not `image/…` or whose `data` is not base64 text is left out.
///
/// ```
/// use serde_json::json;
/// use wink_model::{ToolImage, tool_images};
///
/// let value = json!({"content": [
///     {"type": "text", "text": "The chart:"},
///     {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
/// ]});
/// assert_eq!(tool_images(&value), [ToolImage::new("image/png", "iVBORw0KGgo=")]);
/// assert!(tool_images(&json!({"answer": 42})).is_empty());
/// ```
pub fn tool_images(value: &Value) -> Vec<ToolImage> {
    let blocks = match value {
        Value::Array(blocks) => blocks,
        Value::Object(map) => match map.get("content") {
            Some(Value::Array(blocks)) => blocks,
            _ => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    blocks.iter().filter_map(image_block).collect()
}

/// One content block as an image, when it is a well-formed one.
fn image_block(block: &Value) -> Option<ToolImage> {
    if block.get("type")?.as_str()? != "image" {
        return None;
    }
    let mime_type = block.get("mimeType")?.as_str()?;
    let data = block.get("data")?.as_str()?;
    let subtype = mime_type.strip_prefix("image/")?;
    if subtype.is_empty() || !is_base64(data) {
        return None;
    }
    Some(ToolImage::new(mime_type, data))
}

/// Whether `text` is non-empty standard base64 (with `=` padding at most at its end).
fn is_base64(text: &str) -> bool {
    let body = text.trim_end_matches('=');
    !body.is_empty()
        && text.len() - body.len() <= 2
        && text.len().is_multiple_of(4)
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_images_in_both_forms_in_order() {
        let blocks = json!([
            {"type": "image", "data": "AAAA", "mimeType": "image/gif"},
            {"type": "text", "text": "between"},
            {"type": "image", "data": "QUJDRA==", "mimeType": "image/webp"}
        ]);
        let expected = [
            ToolImage::new("image/gif", "AAAA"),
            ToolImage::new("image/webp", "QUJDRA=="),
        ];
        assert_eq!(tool_images(&blocks), expected);
        assert_eq!(
            tool_images(&json!({"content": blocks, "isError": false})),
            expected
        );
    }

    #[test]
    fn leaves_out_what_is_not_an_image() {
        let value = json!({"content": [
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "image", "data": "AAAA", "mimeType": "text/plain"},
            {"type": "image", "data": "AAAA", "mimeType": "image/"},
            {"type": "image", "data": "not base64!", "mimeType": "image/png"},
            {"type": "image", "data": "AAA", "mimeType": "image/png"},
            {"type": "image", "data": "A===", "mimeType": "image/png"},
            {"type": "image", "data": "", "mimeType": "image/png"},
            {"type": "image", "data": 7, "mimeType": "image/png"},
            {"type": "image", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "x://y", "blob": "AAAA", "mimeType": "image/png"}},
            "image"
        ]});
        assert_eq!(tool_images(&value), []);
        assert!(tool_images(&json!("AAAA")).is_empty());
        assert!(tool_images(&json!({"content": "AAAA"})).is_empty());
    }

    #[test]
    fn web_formats_are_the_four_the_apis_take() {
        let web: Vec<bool> = [
            "image/png",
            "image/jpeg",
            "image/gif",
            "image/webp",
            "image/svg+xml",
            "image/tiff",
        ]
        .into_iter()
        .map(|mime| ToolImage::new(mime, "AAAA").is_web_format())
        .collect();
        assert_eq!(web, [true, true, true, true, false, false]);
    }
}
