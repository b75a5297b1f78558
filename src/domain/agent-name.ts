// Agent names (the part after the slash in `@owner/name`), for the tool and the sandbox alike.
export const AGENT_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const AGENT_NAME_RULE = 'must be 1 to 32 characters of a-z, 0-9, "-" or "_", starting with a letter or digit';
