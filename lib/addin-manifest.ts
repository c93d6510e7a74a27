/**
 * The Word add-in's manifest: the XML add-in-only manifest (`OfficeApp`, TaskPaneApp, schema
 * 1.1, with a `VersionOverrides` 1.0 button on Word's Home tab), which Microsoft supports in
 * production for Word, where the unified JSON manifest is still a preview
 * (https://learn.microsoft.com/office/dev/add-ins/develop/add-in-manifests). Elements are in the
 * order the schema requires
 * (https://learn.microsoft.com/office/dev/add-ins/develop/manifest-element-ordering).
 *
 * Plain data and pure functions: no aws-cdk-lib import, so the CLI and the build load it
 * cheaply; the stack passes a `base` holding CloudFormation tokens, which the deployment fills in.
 */
import { createHash } from 'node:crypto';
import { UnscopedValidationError } from './errors.js';

/** The requirement set the add-in needs: comments and change tracking arrived in WordApi 1.4. */
export const ADDIN_REQUIREMENT = { name: 'WordApi', minVersion: '1.4' } as const;

/** The add-in's files below its base URL. */
export const ADDIN_FILES = {
  taskpane: 'taskpane.html',
  signIn: 'sign-in.html',
  manifest: 'manifest.xml',
  icons: { 16: 'icon-16.png', 32: 'icon-32.png', 64: 'icon-64.png', 80: 'icon-80.png' },
} as const;

/** Where the add-in's files are served below the reviewer app's address. */
export const ADDIN_PATH = 'addin/';

/** Options of {@link addinManifest}. */
export interface AddinManifestOptions {
  /** The add-in's base URL, ending in '/' (`https://d111.cloudfront.net/addin/`). */
  readonly base: string;
  /** The deployment it belongs to (a stack name, or `local`): its id and the name Word shows. */
  readonly deployment: string;
  /** The reviewer app, for people who need help. @default the base URL's parent (required when `base` holds tokens) */
  readonly supportUrl?: string;
  /** Four-part version Office compares on updates. @default '1.0.0.0' */
  readonly version?: string;
}

/**
 * The manifest could not be written with the base URL it was given: a validation error raised
 * where no construct is at hand (the CLI and the build write manifests too).
 */
export class AddinManifestError extends UnscopedValidationError {
  override readonly name: string = 'AddinManifestError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('BadAddinBase', message, options);
  }
}

/** True for an {@link AddinManifestError}. */
export function isAddinManifestError(error: unknown): error is AddinManifestError {
  return error instanceof AddinManifestError;
}

/**
 * The add-in's id for a deployment: a UUID from the deployment's name, so the manifest of a
 * stack is the same whoever writes it, and two stacks' add-ins can be installed side by side.
 */
export function addinId(deployment: string): string {
  const h = createHash('sha256').update(`clause-review word add-in\n${deployment}`).digest('hex');
  // Version 4 and RFC 4122 variant bits, as Office expects a UUID.
  const variant = ((Number.parseInt(h[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The URL above `base`. @throws AddinManifestError when `base` is not a URL */
function parentOf(base: string): string {
  try {
    return new URL('..', base).href;
  } catch (error) {
    throw new AddinManifestError(
      `the add-in's base URL is not a URL, and no supportUrl was given; got '${base}'`,
      {
        cause: error,
      },
    );
  }
}

const escapeXml = (s: string) =>
  s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/**
 * The manifest.xml of the add-in served at `base`.
 * @throws AddinManifestError when `base` does not end in '/' or (once resolved) is not HTTPS
 *   on a deployed stack's host; loopback may be HTTP for a local trial.
 * @example
 * writeFileSync('manifest.xml', addinManifest({ base: 'https://d111.cloudfront.net/addin/', deployment: 'clause-review' }));
 */
export function addinManifest(options: AddinManifestOptions): string {
  const { base, deployment } = options;
  if (!base.endsWith('/'))
    throw new AddinManifestError(`the add-in's base URL must end in '/'; got '${base}'`);
  // A base holding deploy-time tokens is checked by the stack, not here.
  if (
    !base.includes('${Token[') &&
    !/^https:\/\//.test(base) &&
    !/^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(base)
  ) {
    throw new AddinManifestError(
      `Office loads add-ins over HTTPS only: the base URL must start with https:// (or be loopback for a local trial); got '${base}'`,
    );
  }
  const url = (file: string) => escapeXml(`${base}${file}`);
  const support = escapeXml(options.supportUrl ?? parentOf(base));
  const name = escapeXml(deployment === 'clause-review' ? 'clause-review' : `clause-review (${deployment})`);
  const icons = (ids: readonly (16 | 32 | 80)[]) =>
    ids.map((s) => `<bt:Image size="${s}" resid="Icon.${s}"/>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>
<OfficeApp xmlns="http://schemas.microsoft.com/office/appforoffice/1.1"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:bt="http://schemas.microsoft.com/office/officeappbasictypes/1.0"
  xmlns:ov="http://schemas.microsoft.com/office/taskpaneappversionoverrides"
  xsi:type="TaskPaneApp">
  <Id>${addinId(deployment)}</Id>
  <Version>${escapeXml(options.version ?? '1.0.0.0')}</Version>
  <ProviderName>clause-review</ProviderName>
  <DefaultLocale>en-US</DefaultLocale>
  <DisplayName DefaultValue="${name}"/>
  <Description DefaultValue="Reviews the open contract: findings arrive as comments on their clauses while the review runs, and proposed redlines are applied as tracked changes."/>
  <IconUrl DefaultValue="${url(ADDIN_FILES.icons[32])}"/>
  <HighResolutionIconUrl DefaultValue="${url(ADDIN_FILES.icons[64])}"/>
  <SupportUrl DefaultValue="${support}"/>
  <Hosts>
    <Host Name="Document"/>
  </Hosts>
  <Requirements>
    <Sets DefaultMinVersion="1.1">
      <Set Name="${ADDIN_REQUIREMENT.name}" MinVersion="${ADDIN_REQUIREMENT.minVersion}"/>
    </Sets>
  </Requirements>
  <DefaultSettings>
    <SourceLocation DefaultValue="${url(ADDIN_FILES.taskpane)}"/>
  </DefaultSettings>
  <Permissions>ReadWriteDocument</Permissions>
  <VersionOverrides xmlns="http://schemas.microsoft.com/office/taskpaneappversionoverrides" xsi:type="VersionOverridesV1_0">
    <Hosts>
      <Host xsi:type="Document">
        <DesktopFormFactor>
          <GetStarted>
            <Title resid="GetStarted.Title"/>
            <Description resid="GetStarted.Description"/>
            <LearnMoreUrl resid="Support.Url"/>
          </GetStarted>
          <ExtensionPoint xsi:type="PrimaryCommandSurface">
            <OfficeTab id="TabHome">
              <Group id="ClauseReview.Group">
                <Label resid="Group.Label"/>
                <Icon>${icons([16, 32, 80])}</Icon>
                <Control xsi:type="Button" id="ClauseReview.Open">
                  <Label resid="Button.Label"/>
                  <Supertip>
                    <Title resid="Button.Label"/>
                    <Description resid="Button.Tooltip"/>
                  </Supertip>
                  <Icon>${icons([16, 32, 80])}</Icon>
                  <Action xsi:type="ShowTaskpane">
                    <TaskpaneId>ClauseReview.Pane</TaskpaneId>
                    <SourceLocation resid="Taskpane.Url"/>
                  </Action>
                </Control>
              </Group>
            </OfficeTab>
          </ExtensionPoint>
        </DesktopFormFactor>
      </Host>
    </Hosts>
    <Resources>
      <bt:Images>
        <bt:Image id="Icon.16" DefaultValue="${url(ADDIN_FILES.icons[16])}"/>
        <bt:Image id="Icon.32" DefaultValue="${url(ADDIN_FILES.icons[32])}"/>
        <bt:Image id="Icon.80" DefaultValue="${url(ADDIN_FILES.icons[80])}"/>
      </bt:Images>
      <bt:Urls>
        <bt:Url id="Taskpane.Url" DefaultValue="${url(ADDIN_FILES.taskpane)}"/>
        <bt:Url id="Support.Url" DefaultValue="${support}"/>
      </bt:Urls>
      <bt:ShortStrings>
        <bt:String id="Group.Label" DefaultValue="clause-review"/>
        <bt:String id="Button.Label" DefaultValue="Review contract"/>
        <bt:String id="GetStarted.Title" DefaultValue="Review this contract with clause-review"/>
      </bt:ShortStrings>
      <bt:LongStrings>
        <bt:String id="Button.Tooltip" DefaultValue="Open the clause-review pane: review the open document, with findings as comments and redlines as tracked changes."/>
        <bt:String id="GetStarted.Description" DefaultValue="Choose Review contract on the Home tab, sign in, and start a review of the open document."/>
      </bt:LongStrings>
    </Resources>
  </VersionOverrides>
</OfficeApp>
`;
}
