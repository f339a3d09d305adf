/**
 * The Skills extension (`io.modelcontextprotocol/skills`): skill folders deployed as Static Assets,
 * described by the manifest scripts/build-skills.mjs writes at build time (entries, digests, sizes,
 * folders). `skills/list` and `skills/get` serve the entries, `resources/read` the files (each
 * checked against its digest), `resources/directory/read` the folders; each SKILL.md is listed by
 * resources/list under its frontmatter's name and description, as the official SDK lists it.
 */
import type { Extension, ResourceDefinition } from "../app";
import { invalidParams } from "../errors";
import { paginate } from "../pagination";
import { readRecorded, type AssetFile } from "./assets";
import { defineExtension } from "./host";

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

export interface SkillEntry {
  uri: string;
  frontmatter: { name: string; description: string; [key: string]: unknown };
  resources: { uri: string; digest: string; size: number }[];
}

/** What scripts/build-skills.mjs writes. */
export interface SkillsManifest {
  skills: SkillEntry[];
  files: Record<string, AssetFile>;
  dirs: Record<string, { uri: string; name: string; mimeType: string; size?: number }[]>;
}

export interface SkillsOptions {
  /** The Static Assets binding (default "ASSETS"). */
  binding?: string;
  /** Entries per page of skills/list and resources/directory/read (default 50). */
  pageSize?: number;
}

const PREFIX = "skill://";

/** Serves the skills a manifest describes: `extensions: [skills(manifest)]` in defineApp. */
export function skills(manifest: SkillsManifest, options: SkillsOptions = {}): Extension {
  const binding = options.binding ?? "ASSETS";
  const pageSize = options.pageSize ?? 50;
  const byUri = new Map(manifest.skills.map((s) => [s.uri, s]));
  // skill://<path> is deployed at /skills/<path>: the build reads the same folder the assets serve.
  const file = (uri: string, f: AssetFile, about?: Partial<ResourceDefinition>): ResourceDefinition => ({
    uri,
    name: uri.slice(uri.lastIndexOf("/") + 1),
    mimeType: f.mimeType,
    size: f.size,
    ...about,
    read: (ctx) => readRecorded(ctx.env, binding, `/skills/${uri.slice(PREFIX.length)}`, uri, f),
  });
  const uriParam = (params: Record<string, unknown>, method: string) => {
    if (typeof params.uri !== "string") throw invalidParams(`${method} needs params.uri (a string)`);
    return params.uri;
  };
  return defineExtension({
    id: SKILLS_EXTENSION,
    settings: { directoryRead: true },
    methods: {
      "skills/list": {
        cacheable: true,
        run: (params) => {
          return paginate("skills", manifest.skills, params.cursor, pageSize);
        },
      },
      "skills/get": {
        cacheable: true,
        run: (params) => {
          const uri = uriParam(params, "skills/get");
          const skill = byUri.get(uri);
          if (!skill) throw invalidParams(`No skill is served at ${uri}`, { uri });
          return { skill };
        },
      },
      "resources/directory/read": {
        cacheable: true,
        run: (params) => {
          const uri = uriParam(params, "resources/directory/read");
          const children = Object.hasOwn(manifest.dirs, uri) ? manifest.dirs[uri] : undefined;
          if (!children) throw invalidParams(`${uri} is not a directory resource`, { uri });
          return paginate("resources", children, params.cursor, pageSize);
        },
      },
    },
    resources: manifest.skills.map((s) =>
      file(s.uri, manifest.files[s.uri]!, { name: s.frontmatter.name, description: s.frontmatter.description }),
    ),
    resource: (uri) => (Object.hasOwn(manifest.files, uri) ? file(uri, manifest.files[uri]!) : undefined),
  });
}
