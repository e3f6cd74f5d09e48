//! An answer's Markdown as HTML a page may insert (pulldown-cmark): the model's raw HTML is
//! shown as text, and a link or image goes only to `http`, `https`, `mailto` or within the page
//! (an image shows as a link: a page loads nothing a model named).

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// `text` rendered, safe to insert as HTML.
pub fn render(text: &str) -> String {
    let parser = Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH);
    let events = parser.map(|e| match e {
        Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            dest_url,
            title,
            id,
            ..
        }) => Event::Start(Tag::Link {
            link_type: LinkType::Inline,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim_start().to_ascii_lowercase();
    let scheme = lower.split_once(':').map(|(s, _)| s);
    let relative = scheme.is_none_or(|s| s.contains(['/', '?', '#']));
    match scheme {
        Some("http" | "https" | "mailto") => url,
        _ if relative => url,
        _ => CowStr::Borrowed("#"),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::render;

    #[test]
    fn markdown_renders_and_html_or_script_shows_as_text() {
        let rows = [
            (
                "**bold** `x`",
                "<p><strong>bold</strong> <code>x</code></p>\n",
            ),
            (
                "<script>alert(1)</script>",
                "&lt;script&gt;alert(1)&lt;/script&gt;",
            ),
            (
                "hi <img src=x onerror=alert(1)>",
                "<p>hi &lt;img src=x onerror=alert(1)&gt;</p>\n",
            ),
            ("[a](javascript:alert(1))", "<p><a href=\"#\">a</a></p>\n"),
            ("[a](JavaScript:alert(1))", "<p><a href=\"#\">a</a></p>\n"),
            (
                "[a](https://example.com)",
                "<p><a href=\"https://example.com\">a</a></p>\n",
            ),
            (
                "![pic](http://example.com/x.png)",
                "<p><a href=\"http://example.com/x.png\">pic</a></p>\n",
            ),
            ("[a](src/main.rs)", "<p><a href=\"src/main.rs\">a</a></p>\n"),
        ];
        for (md, want) in rows {
            assert_eq!(render(md), want, "{md}");
        }
    }
}
