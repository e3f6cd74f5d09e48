//! Recognises prompts that are only a greeting, thanks or sign-off ("hi", "Thanks!", "good
//! morning", "你好", "merci beaucoup"), in any case and with any punctuation or emoji around.

/// Words that make a prompt a greeting. A prompt is one when it has at least one of these and
/// every other word is in [`FILLER`].
#[rustfmt::skip]
const CORE: &[&str] = &[
    "hi", "hello", "hey", "heya", "hiya", "yo", "howdy", "greetings", "sup", "thanks", "thank",
    "thx", "ty", "tysm", "tyvm", "cheers", "bye", "goodbye", "morning", "afternoon", "evening",
    "night", "gm", "welcome", "hallo", "moin", "servus", "danke", "dankeschön", "merci", "bonjour",
    "bonsoir", "salut", "coucou", "hola", "gracias", "ciao", "grazie", "buongiorno", "obrigado",
    "obrigada", "olá", "oi", "привет", "спасибо", "здравствуйте",
];

/// Words that may stand beside a greeting without making it a request.
#[rustfmt::skip]
const FILLER: &[&str] = &[
    "good", "there", "everyone", "all", "team", "guys", "folks", "so", "much", "a", "lot", "very",
    "again", "you", "your", "for", "the", "help", "how", "are", "is", "it", "going", "doing",
    "today", "hope", "well", "great", "nice", "awesome", "perfect", "cool", "day", "buddy", "mate",
    "friend", "claude", "codex", "and", "that", "this", "works", "worked", "ok", "okay", "many",
    "tons", "really", "man", "dude", "guten", "tag", "morgen", "abend", "vielen", "schönen",
    "beaucoup", "buenos", "buenas", "días", "dias", "tardes", "noches", "muchas", "mille", "muito",
    "bom", "dia", "большое", "my", "dear", "to", "have", "oh", "ah", "wow", "yay", "lovely",
    "excellent", "amazing", "super", "sir", "pal", "bro", "mr", "ms", "up", "what's", "whats", "s",
    "bot", "assistant", "ai", "once", "more", "in", "advance", "appreciate", "appreciated", "kind",
    "kindly", "of", "stuff", "same",
];

/// Whole-text greetings in scripts written without spaces.
#[rustfmt::skip]
const CJK: &[&str] = &[
    "你好", "您好", "嗨", "哈喽", "哈啰", "谢谢", "谢谢你", "谢谢您", "多谢", "感谢", "非常感谢", "早", "早上好", "早安", "上午好",
    "中午好", "下午好", "晚上好", "晚安", "再见", "拜拜", "辛苦了", "你好呀", "你好啊", "谢啦", "大家好", "こんにちは", "こんばんは",
    "おはよう", "おはようございます", "ありがとう", "ありがとうございます", "どうも", "안녕하세요", "안녕", "감사합니다", "고마워요",
];

/// True when the whole (trimmed) prompt is a greeting, thanks or sign-off.
pub(crate) fn is_greeting(text: &str) -> bool {
    // A greeting is a handful of words; don't lowercase a pasted log to find that out.
    if text.len() > 160 {
        return false;
    }
    let lower = text.to_lowercase();
    let mut has_core = false;
    let mut any = false;
    for word in lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
    {
        any = true;
        if CORE.contains(&word) || is_cjk_greeting(word) {
            has_core = true;
        } else if !FILLER.contains(&word) {
            return false;
        }
    }
    any && has_core
}

/// CJK greetings are written without spaces and often run together ("早上好辛苦了"), so a run
/// counts when it is a sequence of known greetings.
fn is_cjk_greeting(word: &str) -> bool {
    CJK.iter().any(|g| {
        word.strip_prefix(g)
            .is_some_and(|rest| rest.is_empty() || is_cjk_greeting(rest))
    })
}
