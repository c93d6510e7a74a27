import { describe, expect, it } from 'vitest';
import { isPythonEnvironmentError } from '../../../localstack/errors.js';
import { manifestText } from '../../../localstack/localstack-install.js';
import { ensureVenv, REQUIREMENTS_FILE } from '../../../localstack/python-venv.js';

describe('manifestText', () => {
  it('wraps attributes at 72 bytes with continuation lines, and ends with an empty line', () => {
    const jars = Array.from({ length: 30 }, (_, i) => `DynamoDBLocal_lib/dependency-number-${i}.jar`).join(
      ' ',
    );
    const text = manifestText({ 'Manifest-Version': '1.0', 'Class-Path': jars });
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('Manifest-Version: 1.0');
    expect(lines.every((l) => Buffer.byteLength(l) <= 72)).toBe(true);
    expect(text.endsWith('\r\n\r\n')).toBe(true);
    // Unwrapping (drop each CRLF followed by a space) gives the attribute back whole.
    expect(text.replace(/\r\n /g, '').split('\r\n')[1]).toBe(`Class-Path: ${jars}`);
  });
});

describe('ensureVenv', () => {
  it('names the Python it could not run and what the venv is for', () => {
    let caught: unknown;
    try {
      ensureVenv({
        venvDir: '/nonexistent/venv',
        python: '/nonexistent/python3.13',
        requirementsFile: REQUIREMENTS_FILE,
        marker: 'bin/nothing',
        minPython: [3, 13],
        purpose: 'LocalStack 2026.3',
      });
    } catch (error) {
      caught = error;
    }
    expect(isPythonEnvironmentError(caught)).toBe(true);
    expect(String(caught)).toMatch(
      /'\/nonexistent\/python3\.13' was not found or does not run .*LocalStack 2026\.3 needs Python 3\.13 or newer/,
    );
  });
});
