// A reader's own result file on /compare/, read and checked in the browser: loaded by compare.js
// only when a file is opened. Nothing read from the file leaves the page: the only requests made
// here are for the site's own files, at addresses that do not depend on the file (the three
// result schemas, and vendor/js-yaml.min.js for a YAML file; js-yaml 4.1.0, MIT licence,
// vendor/js-yaml.LICENSE). The schema check follows sitegen/validate.py: the keywords the result
// schemas use, the same messages, each problem as file:line: /json/pointer: message.
(function () {
  "use strict";

  var SCHEMAS = { "1": "result.schema.json", "1.1": "result-1.1.schema.json",
                  "1.2": "result-1.2.schema.json" };
  var TYPE_NAMES = { string: "text", integer: "a whole number", number: "a number",
                     object: "a mapping of fields",
                     array: "a list", boolean: "true or false", "null": "null" };

  var loadScript = function (src) {
    return new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      script.src = src;
      script.onload = resolve;
      script.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(script);
    });
  };

  // --- where each value is: JSON pointer → line ----------------------------------------------
  var escapeToken = function (token) {
    return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
  };
  var lineAt = function (text, index) { return text.slice(0, index).split("\n").length; };

  // JSON: a scan of the text alongside its structure (JSON.parse keeps no positions).
  var jsonLines = function (text) {
    var lines = {}, at = 0;
    var space = function () { while (at < text.length && " \t\r\n".indexOf(text[at]) >= 0) at++; };
    var string = function () {
      var start = at++;
      while (at < text.length && text[at] !== "\"") at += text[at] === "\\" ? 2 : 1;
      at++;
      return JSON.parse(text.slice(start, at));
    };
    var value = function (pointer) {
      space();
      lines[pointer] = lineAt(text, at);
      var c = text[at];
      if (c === "{" || c === "[") {
        var index = 0;
        at++;
        space();
        while (at < text.length && text[at] !== "}" && text[at] !== "]") {
          var token = index++;
          if (c === "{") { space(); token = string(); space(); at++; }
          value(pointer + "/" + escapeToken(token));
          space();
          if (text[at] === ",") at++;
          space();
        }
        at++;
      } else if (c === "\"") {
        string();
      } else {
        while (at < text.length && ",}] \t\r\n".indexOf(text[at]) < 0) at++;
      }
    };
    value("");
    return lines;
  };

  // Block YAML (what sitegen import and sitegen new write): each "key:" and "- " by its indent.
  // Flow collections and block text count as the line they start on.
  var KEY = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"-][^:#]*?|-[^\s:#][^:#]*?)\s*:(?:\s|$)/;
  var unquote = function (key) {
    if (key[0] === "\"") return JSON.parse(key);
    return key[0] === "'" ? key.slice(1, -1).replace(/''/g, "'") : key;
  };
  var yamlLines = function (text) {
    var lines = { "": 1 }, stack = [{ indent: -1, pointer: "", list: false, last: "" }];
    text.split("\n").forEach(function (raw, number) {
      var content = raw.replace(/^ +/, ""), indent = raw.length - content.length;
      if (!content.trim() || content[0] === "#") return;
      var item = /^-( |$)/.test(content);
      var top = stack[stack.length - 1];
      var ends = function () {
        return top.indent > indent || (top.indent === indent && top.list && !item);
      };
      while (stack.length > 1 && ends()) {
        stack.pop();
        top = stack[stack.length - 1];
      }
      if (item) {
        var list = top;
        if (!(top.list && top.indent === indent)) {
          list = { indent: indent, pointer: top.last, list: true, count: -1 };
          stack.push(list);
        }
        list.count += 1;
        var itemPointer = list.pointer + "/" + list.count;
        lines[itemPointer] = number + 1;
        var rest = content.replace(/^-\s*/, "");
        indent += content.length - rest.length;
        content = rest;
        top = { indent: indent, pointer: itemPointer, list: false, last: itemPointer };
        stack.push(top);
      }
      var match = KEY.exec(content);
      if (!match) return;
      if (top.list || top.indent !== indent) {
        top = { indent: indent, pointer: top.last, list: false, last: "" };
        stack.push(top);
      }
      top.last = top.pointer + "/" + escapeToken(unquote(match[1]));
      lines[top.last] = number + 1;
    });
    return lines;
  };

  var lineOf = function (lines, pointer) {
    for (;;) {
      if (pointer in lines) return lines[pointer];
      if (!pointer) return null;
      pointer = pointer.slice(0, pointer.lastIndexOf("/"));
    }
  };

  // --- the schema check (sitegen/validate.py's subset of JSON Schema, its messages) --------------
  var short = function (value) {
    var text = typeof value === "string" ? "'" + value + "'" : JSON.stringify(value);
    return text.length <= 60 ? text : text.slice(0, 57) + "…";
  };
  var typeOf = function (value) {
    if (value === null) return "null";
    if (typeof value === "boolean") return "true/false";
    if (typeof value === "number") return "a number";
    if (typeof value === "string") return "text " + short(value);
    return Array.isArray(value) ? "a list" : "a mapping";
  };
  var EMPTY = "must not be empty; leave the field out instead";
  var isType = function (value, type) {
    if (type === "object") {
      return value !== null && typeof value === "object" && !Array.isArray(value);
    }
    if (type === "array") return Array.isArray(value);
    if (type === "integer") return typeof value === "number" && Number.isInteger(value);
    if (type === "null") return value === null;
    return typeof value === type;
  };
  // "Did you mean", as difflib.get_close_matches(word, choices, 1, 0.6) picks: the choice most
  // alike by 2 × (letters in common, in order) ÷ (both lengths), if that is at least 0.6.
  var common = function (a, b) {
    var row = [];
    for (var j = 0; j <= b.length; j++) row.push(0);
    for (var i = 1; i <= a.length; i++) {
      var diagonal = 0;
      for (var k = 1; k <= b.length; k++) {
        var saved = row[k];
        row[k] = a[i - 1] === b[k - 1] ? diagonal + 1 : Math.max(row[k], row[k - 1]);
        diagonal = saved;
      }
    }
    return row[b.length];
  };
  var didYouMean = function (word, choices) {
    var best = null;
    word = String(word);
    choices.forEach(function (choice) {
      var ratio = 2 * common(word, choice) / (word.length + choice.length);
      if (ratio >= 0.6 && (best === null || ratio > best[0])) best = [ratio, choice];
    });
    return best ? "; did you mean '" + best[1] + "'?" : "";
  };
  var resolve = function (root, schema) {
    while (schema && schema.$ref) {
      var path = schema.$ref.replace(/^#\//, "").split("/");
      var target = root;
      path.forEach(function (part) { target = target[part]; });
      var rest = {};
      Object.keys(schema).forEach(function (key) { if (key !== "$ref") rest[key] = schema[key]; });
      schema = Object.assign({}, target, rest);
    }
    return schema;
  };

  var check = function (root, schema, value, pointer, problems) {
    schema = resolve(root, schema);
    var say = function (message, at) {
      problems.push({ pointer: at === undefined ? pointer : at, message: message });
    };
    if (schema.type !== undefined) {
      var types = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (!types.some(function (t) { return isType(value, t); })) {
        var names = types.map(function (t) { return TYPE_NAMES[t] || t; });
        say("expected " + names.join(" or ") + ", got " + typeOf(value));
        return;
      }
    }
    if (schema.enum && !schema.enum.some(function (option) { return option === value; })) {
      var options = schema.enum.map(function (o) { return "'" + o + "'"; });
      say(short(value) + " is not one of " + options.join(", ") +
          didYouMean(value, schema.enum.map(String)));
    }
    if (schema.const !== undefined && schema.const !== value) {
      say("must be " + short(schema.const) + ", not " + short(value));
    }
    if (typeof value === "string") {
      if (schema.minLength !== undefined && value.length < schema.minLength) say(EMPTY);
      if (schema.maxLength !== undefined && value.length > schema.maxLength) {
        say("text is " + value.length.toLocaleString("en-US") + " characters, over the limit of " +
            schema.maxLength.toLocaleString("en-US"));
      }
      if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) {
        var described = schema.description && /^[a-z]/.test(schema.description);
        say(short(value) + (described ? " is not " + schema.description
                                      : " does not match the pattern " + schema.pattern));
      }
    }
    if (typeof value === "number") {
      [["minimum", "at least", function (v, b) { return v < b; }],
       ["exclusiveMinimum", "more than", function (v, b) { return v <= b; }],
       ["maximum", "at most", function (v, b) { return v > b; }]].forEach(function (rule) {
        if (schema[rule[0]] !== undefined && rule[2](value, schema[rule[0]])) {
          say(short(value) + " is out of range: must be " + rule[1] + " " +
              schema[rule[0]].toLocaleString("en-US"));
        }
      });
    }
    if (Array.isArray(value)) {
      if (schema.maxItems !== undefined && value.length > schema.maxItems) {
        say("too many entries (" + value.length + "); the limit is " + schema.maxItems);
      }
      if (schema.minItems !== undefined && value.length < schema.minItems) {
        say("expected at least " + schema.minItems + " entries");
      }
      if (schema.items) {
        value.forEach(function (item, i) {
          check(root, schema.items, item, pointer + "/" + i, problems);
        });
      }
    }
    if (isType(value, "object")) checkObject(root, schema, value, pointer, problems, say);
  };

  var checkObject = function (root, schema, value, pointer, problems, say) {
    var properties = schema.properties || {};
    var known = Object.keys(properties).sort();
    (schema.required || []).forEach(function (name) {
      if (!(name in value)) say("missing required field '" + name + "'");
    });
    var keys = Object.keys(value);
    if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
      say("too many entries (" + keys.length + "); the limit is " + schema.maxProperties);
    }
    if (schema.minProperties !== undefined && keys.length < schema.minProperties) say(EMPTY);
    keys.sort().forEach(function (key) {
      var at = pointer + "/" + escapeToken(key);
      if (schema.propertyNames) check(root, schema.propertyNames, key, at, problems);
      if (key in properties) {
        check(root, properties[key], value[key], at, problems);
      } else if (schema.additionalProperties === false) {
        var hint = didYouMean(key, known) || (known.length ? "; allowed: " + known.join(", ") : "");
        say("unknown field '" + key + "'" + hint, at);
      } else if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
        check(root, schema.additionalProperties, value[key], at, problems);
      }
    });
  };

  // --- reading a file ---------------------------------------------------------------------------
  // Resolves to { doc, problems: [text…] }: the document (without a published run's receipt,
  // which the site adds) and every problem as sitegen check would word it.
  var read = function (text, name, assets, schemaRoot) {
    var yaml = /\.ya?ml$/i.test(name);
    var parsed = yaml
      ? loadScript(assets.yaml).then(function () {
        return window.jsyaml.load(text, { schema: window.jsyaml.CORE_SCHEMA });
      })
      : Promise.resolve().then(function () { return JSON.parse(text); });
    // All three schemas, whichever the file declares: the requests do not depend on the file.
    var schemas = Promise.all(Object.keys(SCHEMAS).map(function (version) {
      return fetch(schemaRoot + SCHEMAS[version]).then(function (r) {
        if (!r.ok) throw new Error(r.status + " " + r.url);
        return r.json().then(function (schema) { return [version, schema]; });
      });
    }));
    return parsed.then(function (data) {
      return schemas.then(function (pairs) { return checked(data, text, name, yaml, pairs); });
    }, function (error) {
      var line = error.mark ? error.mark.line + 1 : (/line (\d+)/.exec(error.message) || [])[1];
      var position = /position (\d+)/.exec(error.message);
      if (!line && position) line = lineAt(text, Number(position[1]));
      var where = name + (line ? ":" + line : "");
      return { doc: null, problems: [where + ": not " + (yaml ? "YAML" : "JSON") + ": " +
                                     (error.reason || error.message)] };
    });
  };

  var checked = function (data, text, name, yaml, pairs) {
    if (!isType(data, "object")) {
      var wanted = ":1: expected a mapping with hardware, engine, run and measurements";
      return { doc: null, problems: [name + wanted] };
    }
    // A published run JSON (site.js reads its measurements' rows back to records; throws on a
    // newer format) without what the site added: its receipt.
    var published;
    try {
      published = window.sitegenRunJson.resultDocument(data);
    } catch (error) {
      return { doc: null, problems: [name + ":1: /run_json_version: " + error.message +
                                     "; give the result file instead"] };
    }
    var doc = {};
    Object.keys(published).forEach(function (key) {
      if (key !== "receipt") doc[key] = published[key];
    });
    var schemas = {};
    pairs.forEach(function (pair) { schemas[pair[0]] = pair[1]; });
    var version = String(doc.schema_version);
    var schema = schemas[version] || schemas["1.2"];
    var problems = [];
    if (!schemas[version]) {
      problems.push({ pointer: "/schema_version",
                      message: short(doc.schema_version) + " is not one of '1', '1.1', '1.2'" });
    }
    check(schema, schema, doc, "", problems);
    var lines = yaml ? yamlLines(text) : jsonLines(text);
    var seen = {};
    var shown = problems.map(function (p) {
      var line = lineOf(lines, p.pointer);
      var where = name + (line ? ":" + line : "") + ": ";
      return where + (p.pointer ? p.pointer + ": " : "") + p.message;
    }).filter(function (text) { return seen[text] ? false : (seen[text] = true); });
    return { doc: shown.length ? null : doc, problems: shown };
  };

  // --- its setup, as pages/compare.py's FACTS words a published run's ------------------------------
  var plain = function (value) {
    var digits = Number.isInteger(value) ? 0 : 1;
    return value.toLocaleString("en-US",
                                { minimumFractionDigits: digits, maximumFractionDigits: digits });
  };
  var joined = function (parts) { return parts.filter(Boolean).join(" ") || null; };
  var setup = function (doc, setups) {
    var hw = doc.hardware, engine = doc.engine, run = doc.run;
    var withMemory = hw.memory_per_device_gb !== undefined && hw.type === "discrete-gpu";
    var accelerator = hw.accelerator + (withMemory
      ? " " + plain(hw.memory_per_device_gb) + "GB" : "");
    var facts = [run.model, accelerator, String(hw.count), joined([engine.name, engine.version]),
                 engine.quantization, engine.parallelism, engine.speculative_decoding,
                 joined([run.benchmark_tool, run.benchmark_tool_version]),
                 (setups.decode_modes || {})[run.decode_mode || ""],
                 run.time_per_measurement_s !== undefined
                   ? plain(run.time_per_measurement_s) + " s" : null,
                 run.max_output_tokens
                   ? run.max_output_tokens.toLocaleString("en-US") + " tokens" : null,
                 run.date];
    var settings = {};
    Object.keys(engine.settings || {}).forEach(function (key) {
      settings[key] = window.sitegenNumbers.setting(engine.settings[key]);  // as the pages word them
    });
    var shown = facts.map(function (f) {
      return f === null || f === undefined ? "—" : String(f);
    });
    return { facts: shown,
             // Its launch command is not parsed here (sitegen/site/figures/launch_settings.py is Python):
             // the setup table says so instead of guessing.
             command: false, unparsed: !!engine.launch_command, launch: {}, other_flags: "none",
             settings: settings, count: hw.count };
  };

  window.sitegenOwnFile = { read: read, setup: setup };
})();
