/**
 * RFC 6570 level-1 templates (`{var}` only): compiled once to a matcher that
 * turns a concrete URI back into its variables.
 */
export interface UriMatcher {
  match(uri: string): Record<string, string> | null;
}

export function compileUriTemplate(template: string): UriMatcher {
  const names: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const m = /^\{([A-Za-z0-9_]+)\}$/.exec(part);
      if (!m) {
        if (part.includes("{") || part.includes("}")) throw new Error(`Unsupported URI template expression in ${template} (only {name})`);
        return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      }
      names.push(m[1]!);
      // A level-1 variable never spans a "/" (it would be percent-encoded).
      return "([^/]+)";
    })
    .join("");
  const re = new RegExp(`^${source}$`);
  return {
    match(uri) {
      const m = re.exec(uri);
      if (!m) return null;
      const vars: Record<string, string> = {};
      names.forEach((name, i) => {
        const raw = m[i + 1]!;
        try {
          vars[name] = decodeURIComponent(raw);
        } catch {
          vars[name] = raw;
        }
      });
      return vars;
    },
  };
}
