//! The phrase tables the local extractor scores sentences with: weighted regexes for rule
//! phrasing (persistence, prohibitions, preferences, conventions) and for one-off phrasing
//! (questions, "for now", "this function", task verbs), in English, Chinese and a few other
//! languages. All patterns run on lowercased text with quoted spans blanked out, as bytes.

#[cfg(test)]
use regex::bytes::Regex;
use regex::bytes::{RegexSet, RegexSetBuilder};
use std::sync::LazyLock;

/// Optional lead-in words before a sentence's real start: "please", "also", "btw", "and"…
const LEAD: &str = r"^[\W_]*(?:(?:please|pls|plz|and|also|oh|but|so|ok|okay|btw|again|important|note|remember|reminder|rule|fyi|one more thing|side note|ps|p\.s\.|in general|generally|just|kindly|then|plus|additionally|finally|lastly|honestly|seriously|general rule|as a rule|last thing|one last thing|and also|oh and|also please|and please|absolutely|definitely|strictly|really|always remember)\b[\W_]*)*";

/// Weighted patterns; a sentence's score is the sum of the weights of those that match.
const WEIGHTED: &[(i32, &str)] = &[
    // Persistence: the strongest sign a line should keep applying.
    (4, r"\b(?:from now on|from here on|going forward|moving forward|henceforth|hereafter|from this point on|in (?:the )?future|for the future|for (?:all|any) future|for the (?:rest|remainder) of|for the whole (?:session|conversation|project|repo)|effective immediately|at all times|as a (?:general )?rule|every time you|each time you|whenever (?:you|we)|any ?time you|in every (?:answer|reply|response|file|commit|pr|message)|not just (?:for )?this (?:task|once|time|file|pr)|applies? everywhere|that's the (?:convention|rule|house style|standard|norm)|the convention here|house style|house rules?|our convention|by convention|(?:can|could|would|will) you (?:please )?(?:always|never|from now on))\b"),
    // Answer language and spelling.
    (4, r"\b(?:answer|answers|respond|reply|replies|write|talk|speak|communicate|explain|comment|comments)\b[^.!?]{0,30}?\bin (?:plain |simple |british |american |us |uk )?(?:english|german|french|spanish|chinese|mandarin|japanese|korean|russian|portuguese|italian|dutch|polish|turkish|swedish|ukrainian|hindi|arabic)\b"),
    (3, r"\b(?:british|american|us|uk) (?:english|spelling)\b"),
    // Preferences.
    (4, r"\bi (?:really |much |strongly |generally |always |usually |personally )?(?:prefer|like|love|hate|dislike|can't stand|cannot stand)\b"),
    (-5, r"\bi (?:really |much )?(?:like|love|hate|prefer) (?:it|this|that|the|your|how|what|where|when|these|those|both)\b"),
    (4, r"\bi(?:'d| would) (?:much |really |strongly |generally )?(?:prefer|rather)\b"),
    (2, r"\bi (?:don't|do not) (?:like|want)\b"),
    (3, r"\b(?:my preference|i'm a fan of|i am a fan of)\b"),
    // Imperatives that state a rule.
    (3, "LEAD(?:don't|do not|dont|never ever|don't ever|do not ever|avoid|refrain from|stop \\w+ing)\\b"),
    (4, r"(?:,|;|:|\band|\bbut|\bso|\bthen|\bplease|—| -)\s+(?:please\s+)?(?:don't|do not|dont)\s+\w"),
    (-5, r"\b(?:don't|do not|dont) (?:worry|bother|forget|hesitate|know|think|care|mind|panic|get me wrong|understand|remember|see|apologi[sz]e for)\b"),
    (4, "LEAD(?:prefer|stick to|stick with|favou?r|make it a habit|get in the habit)\\b"),
    (3, r"(?:[,;:]|\bso|\band|\bbut)\s+(?:please\s+)?(?:prefer|avoid|stick to|stick with)\b"),
    (1, r"\bby default\b"),
    (2, r"\b(?:every|each|all|any) (?:\w+ ){0,2}(?:needs?|must|should|gets?|goes|go|requires?|has to|have to)\b"),
    (2, r"\b(?:it's|it is) (?:fine|ok|okay|acceptable) to\b|\bfeel free to\b"),
    (2, r"\b(?:anywhere|everywhere|nowhere) else\b|\bmy (?:sign-off|approval|permission|explicit ok)\b"),
    (3, r"(?:[,;:]|\bso|\band)\s+(?:please\s+)?keep (?:\w+ )?(?:\w+ )?(?:short|concise|brief|small|narrow|simple|minimal|under|below|out|separate|consistent|in sync|up to date|to the point|focused|readable|stable|backwards)"),
    (2, "LEAD[\\w`'-]+(?: [\\w`'-]+)? only\\b"),
    (4, r"^[\W_]*(?:\w+ ){0,2}(?:rules?|conventions?|style|polic(?:y|ies)|guidelines?|standards?|constraints?|reminder)(?: (?:for|in) (?:this|the|our) \w+)?\s*(?::|：)\s*\S"),
    (2, r"\ball (?:of )?(?:our|my) \w+"),
    (2, r"\bin general\b|\bjust so you know\b|\bfor your information\b"),
    (3, r"\b(?:prefer|favou?r)s? [^;.]{1,60} (?:over|to) "),
    (3, "LEAD(?:follow|stick to|adhere to|respect|comply with) (?:the )?(?:pep ?\\d+|semver|conventional commits|\\w+ (?:style|conventions?|guidelines?|standards?|rules)|(?:our|the|existing) (?:style|conventions?|guidelines?|standards?|rules|patterns?))"),
    (3, "LEADkeep\\b"),
    (-5, "LEADkeep (?:going|trying|looking|digging|at it|the fix|this|that|these|those|it|the change|the rest|the (?:existing|current|old|same|original|previous))\\b"),
    (4, "LEADbe (?:concise|brief|terse|blunt|direct|honest|explicit|specific|precise|careful|thorough|consistent|short|succinct|critical|skeptical|sceptical|pragmatic|strict|conservative|proactive|clear)\\b"),
    (3, "LEADonly (?:use|touch|edit|change|modify|answer|reply|respond|commit|run|import|write|work|create|add|ever)\\b"),
    (3, "LEADno \\S"),
    (-6, "LEADno(?:\\b[,.!:]| (?:need|idea|luck|worries|worry|problem|problems|way|matter|longer|one|clue|rush|change|changes|difference|response|output|errors?|tests?|results?|issues?|doubt|thanks|big deal|pressure|hurry|offense|wonder|i|it|this|that|the|you|we|because|but|not|sorry|as|such|further|other|success|dice|go|joy|kidding|really|wait|then|matches?|match|longer)\\b)"),
    (1, "LEADuse\\b"),
    (3, "LEAD(?:treat|consider) (?:\\S+ ){1,4}as\\b"),
    (3, "LEADfor (?:all|every|each|any) \\w+"),
    (3, r"^[\W_]*remember\b"),
    (2, r"\bwhen (?:writing|adding|creating|changing|touching|editing|reviewing|naming|committing|testing|deploying|designing|refactoring|fixing|working on|working with|using|generating|suggesting)\b"),
    (1, r"\b(?:every|each|all|any) (?:new )?\w+"),
    (1, r"\bi (?:always |only |mostly )?(?:use|work (?:on|with|in)|am on|'m on|run)\b"),
    (-2, r"[,;]\s+(?:not|never)\s+(?:sure|working|really|yet|quite|exactly|so|much|even)\b"),
    (2, r"\bi (?:don't|do not) want (?:any|to see|you to)\b"),
    (4, r"(?:规范|约定|规则|原则|习惯)(?:是|如下)?(?::|：)"),
    (3, r"\bremember (?:to|that|we)\b|\bkeep in mind\b|\bbear in mind\b"),
    (3, r"\b(?:ask|check with) (?:me )?(?:first |for approval |for permission )?before\b"),
    // Habits and scope.
    (2, r"\bbefore (?:you |i |we )?(?:commit|push|merg|say|tell|claim|report|finish|hand|open|submit|mark|declar|start|chang|add|delet|touch|mak|doing|implement|writ|cod|releas|deploy|ship|any|every|each|you're done|you are done)"),
    (3, r"\bafter (?:every|each|any) \w+"),
    (2, r"\b(?:every|each|all|any) (?:new )?(?:commit|commits|pr|prs|pull request|change|changes|bug ?fix|fix|feature|test run|release|file|files|function|functions|module|modules|script|scripts|migration|migrations|endpoint|endpoints|handler|handlers|public|model|models|table|tables|component|components|class|classes|answer|answers|reply|replies|response|responses|message|messages|date|dates|error|errors|time you|interactive|dependency|dependencies|package|packages|crate|crates|library|libraries|test|tests|service|services|query|queries|container|containers|page|pages|route|routes|command|commands|tool|tools|comment|comments|doc|docs|name|names|variable|variables|type|types|string|strings|log|logs|line|lines)\b"),
    (2, r"\b(?:everywhere|throughout|wherever|whenever)\b"),
    (3, r"\b(?:anything|everything|any code|all code|all the code|any scripts?|any files?) (?:you|we) (?:write|do|add|touch|change|create|generate|produce|ship)\b"),
    (2, r"\bin (?:this|the|our|my|every) (?:repo|repository|project|codebase|code base|monorepo|team|company|org|app|apps|application|design system|product|stack|services)\b"),
    (5, r"\b(?:you to|please|pls|just|can you|could you) stop \w+ing\b"),
    (4, "LEAD(?:answer|reply|respond|write|explain)(?: \\w+)? (?:briefly|concisely|tersely|succinctly|in one sentence|in (?:a few|short|bullet)|in plain)"),
    (-5, r"\bby (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|eod|end of (?:day|the day|the week)|next week|the deadline)\b"),
    (-2, "LEAD(?:don't|do not|dont) (?:change|modify|alter|rename|reorder|rewrite) (?:the|its|their) \\w+[.!]?$"),
    (3, r"\bin (?:the )?(?:whole|entire) (?:repo|repository|project|codebase)\b"),
    (3, r"\bwithout (?:asking|approval|permission|my (?:ok|okay|approval|permission)|checking with me|a good reason|discussing)\b"),
    (2, r"\b(?:is|are|isn't|aren't|that's|it's) (?:not |never )?(?:allowed|forbidden|prohibited|banned|mandatory|required|off-limits|off limits|optional|preferred|discouraged|encouraged|deprecated|a must|a no-go|non-negotiable)\b"),
    (3, r"\byou (?:don't|do not) (?:need|have) to\b"),
    (2, r"\b(?:when|if|whenever|once) you(?:'re| are)? (?:done|finish|finished|report|write|change|add|create|make|touch|commit|see|review|answer|reply|explain|refactor|fix|get stuck|are unsure|unsure|introduce|rename|delete|remove|hit|run into|suggest|give|show|recommend|propose|provide|generate|open|start|need|want)\b"),
    (3, r"\bone \w+ per \w+"),
    (3, r"\bin (?:your|all|every|each) (?:replies|answers|responses|messages|explanations|summaries|reviews|commit messages|prs)\b"),
    // Contrast: "TOML, not YAML", "X instead of Y".
    (2, r"[,;]\s+(?:not|never)\s"),
    (1, r"[,;]\s+no\s"),
    (2, r"\b(?:instead of|rather than|not just)\b"),
    // Modals.
    (3, r"\b(?:must|mustn't|shall|shan't)\b"),
    (-5, r"\b(?:it|this|that|there|which|something|you|i|he|she|they|we|problem|issue|bug|error|cause|culprit|reason)\s+must\s+(?:be|have|'ve|mean|come)\b"),
    (1, r"\bshould(?:n't| not)?\b"),
    (-1, r"\b(?:it|this|that|which|there|they|he|she|i|we)\s+should\b"),
    (-2, r"\bshould (?:i|we|you)\b"),
    // Team conventions.
    (3, r"\b(?:we|our team|this (?:repo|project|codebase|team)|our (?:repo|codebase|project|code|team|stack))\s+(?:always |only |generally |usually |normally |strictly |exclusively )?(?:use|uses|prefer|prefers|follow|follows|target|targets|keep|keeps|write|writes|don't|do not|never|validate|validates|require|requires|avoid|avoids|stick|name|names|put|puts|format|formats|indent|indents|deploy|ship|squash|rebase|pin|pins|store|stores|log|logs|review|lint|vendor|support|document)\b"),
    (1, r"\b(?:we're|we are) (?:on|using|targeting|stuck on|pinned to)\b"),
    (1, r"\b(?:go|goes|belong|belongs|live|lives|sit|sits|stay|stays|flow|flows)\s+(?:in|into|under|next to|beside|alongside|inside|outside|with|through|to|at the|on the)\b"),
    // Chinese.
    (4, r"以后|今后|往后|从现在开始|从现在起|从今以后|之后都|之后一律|一律|始终|永远|默认|统一|禁止|严禁|切勿|千万不要|绝对不要|绝不|不许|不准|请勿|务必"),
    (3, r"必须|一定要|每次|不要|不得|避免|尽量|尽可能|少用|只用|只能|优先用|优先使用|请用|请使用|都用|都要|都放|都写|放在|放到|写在|用中文|用英文|用英语|记住|别(?:用|再|把|在|动|改|碰|删|加|写|搞|忘|让|给|使用|提交|推|跑|装|直接|随便)|我(?:更|比较|特别)?(?:喜欢|偏好|倾向于|习惯)|我希望你"),
    (1, r"不用|应该|所有|每个"),
    (-5, r"这次|这一次|这回|先不|先别|暂时|暂且|现在先|今天|目前|帮我|帮忙|麻烦你?|修一下|改一下|看看|看一下|试试|试一下|这个(?:函数|文件|bug|接口|页面|按钮|问题|方法|类|模块|测试|脚本)"),
    // Other languages: the persistence words alone.
    (4, r"\b(?:ab jetzt|von nun an|ab sofort|in zukunft|künftig|immer|niemals|nie|stets|grundsätzlich|désormais|dorénavant|toujours|jamais|de ahora en adelante|a partir de ahora|desde ahora|siempre|nunca|a partir de agora|de agora em diante|sempre|d'ora in poi|da ora in poi|d'ora in avanti)\b|à partir de maintenant|jamás|mai più|всегда|никогда|впредь|с этого момента|отныне"),
    (4, r"今後|これから|常に|必ず|絶対に|決して|しないで|ないでください"),
    // One-off phrasing.
    (-6, r"\b(?:for now|right now|for the time being|this time|just this once|this once|for this (?:one|task|pr|change|commit|fix|function|file|test|ticket|bug|issue|feature|branch|run)|for the moment|at the moment|temporarily|yet|today|tonight|tomorrow|this week|this afternoon|this morning|until (?:i|we) |in this (?:function|file|test|method|class|module|component|pr|commit|branch|case|step|snippet|script|loop)|only for this)\b"),
    (-3, r"\b(?:here|above|below|in there|over there)\s*[.!]?$"),
    (-3, r"\bthis (?:function|file|method|test|class|module|component|bug|issue|pr|branch|one|change|commit|line|part|case|step|endpoint|query|script|page|struct|loop|snippet|code|crate|error|warning|variable|field|table|column|button|form|screen|view|route|job|task|ticket|feature|diff|patch)\b"),
    (-3, r"\bthat (?:function|file|method|test|class|module|component|bug|one|line|part|change|commit|error)\b"),
    (-2, r"\bthe fix\b"),
    (-1, "LEAD(?:fix|add|implement|create|write|refactor|update|change|remove|delete|rename|move|explain|debug|investigate|look|check|find|run|make|build|show|tell|help|generate|port|migrate|convert|translate|summari[sz]e|profile|bump|set up|setup|install|deploy|review|clean|compare|apply|undo|revert|optimi[sz]e|speed up|finish|reproduce|design|sketch|propose|analy[sz]e|try|let's|lets|let us|go ahead|start|continue|open|replace|split|extract|wire|hook|connect|merge|push|commit|give me|send|draft|list|print|measure|benchmark|document|verify|validate|copy|paste|drop|introduce|upgrade|downgrade|enable|disable|turn|switch|swap|inline|tidy|format|lint|figure|get|grab|put)\\b"),
    (-3, "LEADi(?:'d| would) like (?:you to|a|an|to)\\b"),
    (-2, "LEADi (?:need|want) (?:a|an|you to|to)\\b"),
    (-2, "LEAD(?:i|we)\\s+(?:tried|think|thought|guess|noticed|saw|see|get|got|found|had|was|were|just|can't|cannot|couldn't|don't know|did|am|keep getting)\\b"),
    (-2, r"\b(?:i'm|i am|we're|we are) (?:getting|seeing|trying|working on|stuck|not sure|confused)\b"),
    (-2, r"\b(?:it|this|that) (?:fails|failed|breaks|broke|crashes|crashed|hangs|returns|returned|throws|threw|shows|showed|doesn't|does not|didn't|isn't|is not|won't|keeps)\b"),
    (-2, "LEAD(?:it|this|that) (?:runs|ran|takes|took|uses|used|gives|gave|does|did|has|had|seems|looks|works|worked|starts|started|stops|stopped|prints|printed|logs|logged|sends|sent|calls|called|goes|went)\\b"),
    (-2, "LEAD(?:looks like|seems like|apparently|it seems|it looks|turns out)\\b"),
    (-2, r"\bbe able to\b"),
    (-2, "LEAD(?:the|this|that|it|its|my) [^,;]{0,40}\\b(?:should|must)\\b"),
];

/// Questions that do not end with a question mark ("what do you think", "为什么…").
const QUESTION_START: &str = "LEAD(?:what|why|how|where|which|who|whose|is there|are there|is it|is this|was|were|does|did|can (?:you|we|i)|could (?:you|we|i)|would (?:you|it)|will (?:you|it|this)|should (?:we|i)|do you|have you|has)\\b|^(?:为什么|为啥|怎么|如何|是否|能不能|可不可以|有没有)|(?:吗|呢|么)。?$|^¿";

/// Phrases that mark a persistent instruction strongly enough to keep a question-shaped request.
const PERSISTENT: &str = r"\b(?:from now on|going forward|moving forward|in (?:the )?future|for the rest of|every time you|whenever you|(?:can|could|would|will) you (?:please )?(?:always|never))\b|以后|今后|从现在开始";

/// A line introducing a list of rules ("Conventions:", "House rules", "项目约定：").
const RULE_HEADER: &str = r"\b(?:rules?|conventions?|guidelines?|standards|constraints|preferences|principles|polic(?:y|ies)|style|keep in mind|bear in mind|remember|from now on|going forward|for the rest|always|never|in general|how (?:i|we) (?:like to )?(?:work|do things)|how we do (?:things|it)|notes? on how|things to keep|please follow|follow these|before (?:any|every|each) commit|for everything|in everything|norms)\b|约定|规范|规则|要求|注意|遵守|原则|以后|今后|从现在开始|regeln|règles|reglas";

/// A line introducing a list of one-off items ("Steps to reproduce:", "TODO:", "Plan:").
const TASK_HEADER: &str = r"\b(?:todo|to-do|to do|plan|steps?|requirements? for|acceptance|criteria|bugs?|issues|questions?|changes|tasks?|key points|checklist|repro|reproduce|agenda|options|ideas|findings|results|summary|things to fix|fix list|open questions)\b|步骤|待办|任务|问题";

pub(crate) struct Tables {
    /// The weighted patterns in small sets: one set of a hundred patterns needs a lazy DFA so
    /// large that varied text keeps flushing its cache (slow); small sets stay warm.
    weighted: Vec<(RegexSet, &'static [(i32, &'static str)])>,
    pub question_start: RegexSet,
    pub persistent: RegexSet,
    pub rule_header: RegexSet,
    pub task_header: RegexSet,
}

impl Tables {
    /// The summed weight of the patterns that match `cue`.
    pub fn weight(&self, cue: &str) -> i32 {
        self.weighted
            .iter()
            .flat_map(|(set, chunk)| set.matches(cue.as_bytes()).into_iter().map(|i| chunk[i].0))
            .sum()
    }

    /// The patterns that match `cue`, for debugging a score.
    #[cfg(test)]
    pub fn matching(&self, cue: &str) -> Vec<&'static str> {
        self.weighted
            .iter()
            .flat_map(|(set, chunk)| set.matches(cue.as_bytes()).into_iter().map(|i| chunk[i].1))
            .collect()
    }
}

/// Patterns per set, and the lazy DFA cache each set may grow to: measured with
/// `cargo bench --bench extract` (one set of everything thrashes a 2 MB cache on varied text;
/// many tiny sets cost a pass each).
const GROUP: usize = 40;
const DFA_LIMIT: usize = 8 << 20;

/// Compiled once per process. A pattern that failed to compile (never: a test compiles them
/// all) would leave an empty set, so the extractor keeps less instead of panicking.
pub(crate) static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let set = |p: &str| RegexSet::new([expand(p)]).unwrap_or_else(|_| RegexSet::empty());
    Tables {
        weighted: WEIGHTED
            .chunks(GROUP)
            .map(|chunk| {
                let set = RegexSetBuilder::new(chunk.iter().map(|(_, p)| expand(p)))
                    .dfa_size_limit(DFA_LIMIT)
                    .build()
                    .unwrap_or_else(|_| RegexSet::empty());
                (set, chunk)
            })
            .collect(),
        question_start: set(QUESTION_START),
        persistent: set(PERSISTENT),
        rule_header: set(RULE_HEADER),
        task_header: set(TASK_HEADER),
    }
});

/// Patterns run on bytes with Unicode classes off: `\b`, `\w`, `\s` are ASCII, which keeps
/// the whole set inside the fast DFA (a Unicode `\b` falls back to a slow engine on any
/// non-ASCII text). CJK and Cyrillic phrases are plain literals and need no classes.
fn expand(pattern: &str) -> String {
    format!("(?-u){}", pattern.replace("LEAD", LEAD))
}

#[cfg(test)]
pub(crate) fn all_compile() -> Result<(), regex::Error> {
    for (_, p) in WEIGHTED {
        Regex::new(&expand(p))?;
    }
    for p in [QUESTION_START, PERSISTENT, RULE_HEADER, TASK_HEADER] {
        Regex::new(&expand(p))?;
    }
    Ok(())
}
